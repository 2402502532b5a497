// Names of synced catalog entries: deterministic (the same registry, repository and tag always
// give the same name), a DNS label (so also an RFC 1123 subdomain, and usable as a label value),
// and collision-free: a readable prefix that may be cut or folded, then a hash of the exact
// triple that is never cut.
import { createHash } from 'node:crypto';

const MAX_NAME = 63;
const HASH_LENGTH = 12;

function readable(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

export function entryName(registry: string, repository: string, tag: string): string {
  const hash = createHash('sha256').update(`${registry}\n${repository}\n${tag}`).digest('hex').slice(0, HASH_LENGTH);
  const prefix = readable(`${registry}-${repository}-${tag}`).slice(0, MAX_NAME - HASH_LENGTH - 1).replace(/-+$/, '');
  return prefix ? `${prefix}-${hash}` : `image-${hash}`;
}
