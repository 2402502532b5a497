// devcontainer.json in a freshly cloned repository (containers.dev): found and read as JSONC,
// so the clone step can say which of its settings Den did not apply. Den applies none of them
// yet (docs/workspace-source.md); saying so beats ignoring them silently.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Where containers.dev looks, in its order. */
export const DEVCONTAINER_FILES = ['.devcontainer/devcontainer.json', '.devcontainer.json'] as const;

export type DevcontainerReading =
  | { found: false }
  | { found: true; file: string; settings: string[] }
  | { found: true; file: string; problem: string };

/** JSONC to JSON: comments (`//`, `/* *\/`) and trailing commas removed, strings left as they are. */
export function jsoncToJson(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      // An unclosed comment is kept, so JSON.parse reports where it is.
      if (end < 0) return out + text.slice(i);
      out += ' ';
      i = end + 2;
    } else if (c === ',') {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      const next = text[j];
      // A comment between the comma and the bracket is stripped on a second pass.
      if (next !== '}' && next !== ']') out += c;
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

function parseJsonc(text: string): unknown {
  const once = jsoncToJson(text);
  return JSON.parse(jsoncToJson(once));
}

/** The first devcontainer.json of the clone at `dir`, and its top-level settings. */
export async function readDevcontainer(dir: string): Promise<DevcontainerReading> {
  for (const file of DEVCONTAINER_FILES) {
    let text: string;
    try {
      text = await readFile(join(dir, file), 'utf8');
    } catch {
      continue;
    }
    try {
      const parsed = parseJsonc(text);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { found: true, file, problem: 'it is not a JSON object' };
      return { found: true, file, settings: Object.keys(parsed).filter((k) => k !== '$schema' && k !== 'name').sort() };
    } catch (err) {
      return { found: true, file, problem: (err as Error).message.replace(/\s+/g, ' ').slice(0, 200) };
    }
  }
  return { found: false };
}

/** What the clone step adds to its message about the repository's devcontainer.json, or ''. */
export function devcontainerNote(reading: DevcontainerReading, directory: string): string {
  if (!reading.found) return '';
  const where = `~/${directory}/${reading.file}`;
  if ('problem' in reading) return ` ${where} could not be read as JSON with comments (${reading.problem}); Den applies none of it.`;
  const listed = reading.settings.length > 0 ? `: ${reading.settings.join(', ')}` : '';
  return ` Den does not apply devcontainer.json yet; not applied from ${where}${listed}.`;
}
