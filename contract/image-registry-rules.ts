// The rules an ImageRegistry spec must satisfy (SPEC 2.3, 8), in one place: the CRD schema
// takes its bounds from here, the admission webhook and REST refuse with these checks, and
// the sync reads patterns through `compilePattern` so what admission let through compiles.
import type RE2 from 're2';
import { re2 } from '../process/re2.js';

export const IMAGE_REGISTRY_LIMITS = {
  regionMaxLength: 32,
  registryIdMaxLength: 12,
  roleArnMaxLength: 2048,
  intervalSecondsMin: 60,
  intervalSecondsDefault: 900,
  tagLimitMin: 1,
  tagLimitDefault: 1,
} as const;

export const TAG_MODES = ['latest', 'pattern'] as const;
export type TagMode = (typeof TAG_MODES)[number];

export interface RuleViolation {
  /** Path of the offending field in the object (`spec.sync.include[1]`). */
  field: string;
  message: string;
}

/** Why RE2 refuses `pattern`, or undefined when it compiles. RE2 has no backreferences or lookaround, so no pattern runs away. */
export function re2Problem(pattern: string): string | undefined {
  const Compiled = re2();
  try {
    new Compiled(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** `pattern` compiled; throws with RE2's reason when it refuses it. */
export function compilePattern(pattern: string): RE2 {
  return new (re2())(pattern);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function patternViolations(list: unknown, field: string): RuleViolation[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) return [{ field, message: 'must be a list of RE2 patterns' }];
  return list.flatMap((pattern, i): RuleViolation[] => {
    if (typeof pattern !== 'string') return [{ field: `${field}[${i}]`, message: 'must be a string' }];
    const problem = re2Problem(pattern);
    return problem ? [{ field: `${field}[${i}]`, message: `is not a valid RE2 pattern: ${problem}` }] : [];
  });
}

function maxLength(value: unknown, max: number, field: string): RuleViolation[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'string') return [{ field, message: 'must be a string' }];
  return value.length > max ? [{ field, message: `must be at most ${max} characters (got ${value.length})` }] : [];
}

function minimum(value: unknown, min: number, field: string): RuleViolation[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'number' || !Number.isInteger(value)) return [{ field, message: 'must be a whole number' }];
  return value < min ? [{ field, message: `must be at least ${min} (got ${value})` }] : [];
}

/** Every rule of SPEC 2.3 and 8 the spec breaks; an empty list when it is valid. */
export function imageRegistryViolations(spec: unknown): RuleViolation[] {
  if (!isObject(spec)) return [{ field: 'spec', message: 'is required' }];
  const out: RuleViolation[] = [];
  const cloud = spec.cloud;
  if (spec.provider === 'cloud-registry' && !isObject(cloud)) out.push({ field: 'spec.cloud', message: 'is required when spec.provider is cloud-registry' });
  if (isObject(cloud)) {
    if (typeof cloud.region !== 'string' || cloud.region === '') out.push({ field: 'spec.cloud.region', message: 'is required' });
    out.push(...maxLength(cloud.region, IMAGE_REGISTRY_LIMITS.regionMaxLength, 'spec.cloud.region'));
    out.push(...maxLength(cloud.registryId, IMAGE_REGISTRY_LIMITS.registryIdMaxLength, 'spec.cloud.registryId'));
    out.push(...maxLength(cloud.roleArn, IMAGE_REGISTRY_LIMITS.roleArnMaxLength, 'spec.cloud.roleArn'));
  }
  const sync = isObject(spec.sync) ? spec.sync : {};
  out.push(...minimum(sync.intervalSeconds, IMAGE_REGISTRY_LIMITS.intervalSecondsMin, 'spec.sync.intervalSeconds'));
  out.push(...patternViolations(sync.include, 'spec.sync.include'));
  out.push(...patternViolations(sync.exclude, 'spec.sync.exclude'));
  const tags = isObject(sync.tags) ? sync.tags : {};
  if (tags.mode !== undefined && !(TAG_MODES as readonly unknown[]).includes(tags.mode)) {
    out.push({ field: 'spec.sync.tags.mode', message: `must be one of ${TAG_MODES.join(', ')}` });
  }
  out.push(...patternViolations(tags.patterns, 'spec.sync.tags.patterns'));
  out.push(...minimum(tags.limit, IMAGE_REGISTRY_LIMITS.tagLimitMin, 'spec.sync.tags.limit'));
  return out;
}
