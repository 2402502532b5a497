// Which remote images become catalog entries (SPEC 1.6, 2.3): repositories through include and
// exclude (exclude wins; no include means every repository), then per repository the tags of
// tags.mode, newest first by push time, at most tags.limit of them. Untagged images never count.
import type RE2 from 're2';
import { compilePattern, IMAGE_REGISTRY_LIMITS } from '../../contract/image-registry-rules.js';
import { RegistryError } from './provider.js';
import type { ImageRegistrySpec, RegistryListing } from './types.js';

export interface SyncPatterns {
  include: RE2[];
  exclude: RE2[];
  /** Used only when tags.mode is pattern. */
  tags: RE2[];
}

export interface SelectedImage {
  repository: string;
  tag: string;
  /** `<repository uri>:<tag>`. */
  reference: string;
  pushedAt: number;
}

function compileAll(patterns: string[] | undefined, field: string): RE2[] {
  return (patterns ?? []).map((pattern, i) => {
    try {
      return compilePattern(pattern);
    } catch (err) {
      throw new RegistryError('InvalidPattern', `${field}[${i}] is not a valid RE2 pattern: ${(err as Error).message}`);
    }
  });
}

/** The spec's patterns compiled; a pattern RE2 refuses is an InvalidPattern failure naming the field. */
export function compileSyncPatterns(spec: ImageRegistrySpec): SyncPatterns {
  return {
    include: compileAll(spec.sync?.include, 'spec.sync.include'),
    exclude: compileAll(spec.sync?.exclude, 'spec.sync.exclude'),
    tags: compileAll(spec.sync?.tags?.patterns, 'spec.sync.tags.patterns'),
  };
}

/** A pattern matches anywhere in the name unless it anchors itself with ^ and $. */
export function wantsRepository(patterns: SyncPatterns, name: string): boolean {
  if (patterns.exclude.some((p) => p.test(name))) return false;
  return patterns.include.length === 0 || patterns.include.some((p) => p.test(name));
}

/** Newest first; images pushed in the same instant in tag order, so the choice never depends on the listing's order. */
function newestFirst(a: SelectedImage, b: SelectedImage): number {
  return b.pushedAt - a.pushedAt || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0);
}

export function selectImages(listing: RegistryListing, spec: ImageRegistrySpec, patterns: SyncPatterns): SelectedImage[] {
  const mode = spec.sync?.tags?.mode ?? 'latest';
  const limit = Math.max(spec.sync?.tags?.limit ?? IMAGE_REGISTRY_LIMITS.tagLimitDefault, IMAGE_REGISTRY_LIMITS.tagLimitMin);
  const selected: SelectedImage[] = [];
  for (const repo of listing.repositories) {
    if (!wantsRepository(patterns, repo.name)) continue;
    const candidates: SelectedImage[] = [];
    const seen = new Set<string>();
    for (const image of repo.images) {
      for (const tag of image.tags) {
        if (!tag || seen.has(tag)) continue;
        if (mode === 'pattern' && !patterns.tags.some((p) => p.test(tag))) continue;
        seen.add(tag);
        candidates.push({ repository: repo.name, tag, reference: `${repo.uri}:${tag}`, pushedAt: image.pushedAt });
      }
    }
    selected.push(...candidates.sort(newestFirst).slice(0, limit));
  }
  return selected;
}
