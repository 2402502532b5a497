// Answers recorded from a real kube-apiserver (../shared/fixtures/kube): test doubles
// use these shapes, never invented ones.
import { readFileSync } from 'node:fs';

const FIXTURES = new URL('../../../shared/fixtures/kube/', import.meta.url);

export interface RecordedAnswer<T = any> {
  request: { method: string; path: string };
  status: number;
  body: T;
}

/** A recorded `*.json` answer (deep-copied, so tests may modify it). */
export function fixture<T = any>(name: string): RecordedAnswer<T> {
  return JSON.parse(readFileSync(new URL(name, FIXTURES), 'utf8')) as RecordedAnswer<T>;
}

/** The AdmissionReview a webhook receives, as recorded. */
export function admissionReviewFixture(): any {
  return JSON.parse(readFileSync(new URL('admissionreview-request-create.json', FIXTURES), 'utf8'));
}

/** A recorded `*.jsonl` session: one frame or event per line. */
export function fixtureLines<T = any>(name: string): T[] {
  return readFileSync(new URL(name, FIXTURES), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);
}
