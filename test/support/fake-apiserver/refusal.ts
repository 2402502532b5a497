// The API server's refusal of a request a test expects to fail.
import { KubeApiError } from '../../../kube/errors.js';

/** The KubeApiError `request` ends in; a request that succeeds (or fails otherwise) fails the test. */
export async function refusal(request: Promise<unknown>): Promise<KubeApiError> {
  const outcome = await request.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(outcome instanceof KubeApiError)) throw new Error(`expected the API server to refuse, got ${String(outcome)}`);
  return outcome;
}
