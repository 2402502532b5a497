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
  /** The same in the words of the administrator who asked, saying what to do (the webhook's cause, the catalog page). */
  advice: string;
}

/** What each bounded field is, in words (`The region`). */
const FIELD_WORDS: Record<string, string> = {
  'spec.cloud.region': 'The region',
  'spec.cloud.registryId': 'The account id',
  'spec.cloud.roleArn': 'The role ARN',
  'spec.sync.intervalSeconds': 'The sync interval',
  'spec.sync.tags.limit': 'The number of tags kept',
};

/** What to do about a pattern RE2 refuses: what RE2 lacks, and an example that works. */
export const RE2_HINT = 'Den reads patterns as RE2, which has no lookahead, lookbehind or backreferences: rewrite it, such as ^team/.*$.';

/** The advice for a pattern RE2 refuses, with RE2's reason. */
export function patternAdvice(problem: string): string {
  return `This is not a regular expression Den can use (${problem}). ${RE2_HINT}`;
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
  if (!Array.isArray(list)) return [{ field, message: 'must be a list of RE2 patterns', advice: 'Patterns are a list of regular expressions, one per entry, such as ^team/.*$.' }];
  return list.flatMap((pattern, i): RuleViolation[] => {
    if (typeof pattern !== 'string') return [{ field: `${field}[${i}]`, message: 'must be a string', advice: 'Each pattern is a regular expression written as text, such as ^team/.*$.' }];
    const problem = re2Problem(pattern);
    return problem ? [{ field: `${field}[${i}]`, message: `is not a valid RE2 pattern: ${problem}`, advice: patternAdvice(problem) }] : [];
  });
}

function maxLength(value: unknown, max: number, field: string): RuleViolation[] {
  if (value === undefined || value === null) return [];
  const what = FIELD_WORDS[field] ?? field;
  if (typeof value !== 'string') return [{ field, message: 'must be a string', advice: `${what} is text: write it as such.` }];
  return value.length > max ? [{ field, message: `must be at most ${max} characters (got ${value.length})`, advice: `${what} is at most ${max} characters, and this one has ${value.length}: check what was pasted.` }] : [];
}

function minimum(value: unknown, min: number, field: string): RuleViolation[] {
  if (value === undefined || value === null) return [];
  const what = FIELD_WORDS[field] ?? field;
  const advice = field === 'spec.sync.intervalSeconds'
    ? `Den syncs a registry at most once a minute: give ${min} seconds or more (${IMAGE_REGISTRY_LIMITS.intervalSecondsDefault} when left out).`
    : `${what} is at least ${min}: give ${min} or more.`;
  if (typeof value !== 'number' || !Number.isInteger(value)) return [{ field, message: 'must be a whole number', advice: `${what} is a whole number. ${advice}` }];
  return value < min ? [{ field, message: `must be at least ${min} (got ${value})`, advice }] : [];
}

/** Every rule of SPEC 2.3 and 8 the spec breaks; an empty list when it is valid. */
export function imageRegistryViolations(spec: unknown): RuleViolation[] {
  if (!isObject(spec)) return [{ field: 'spec', message: 'is required', advice: 'An image registry needs its settings (spec): the provider, and what to sync.' }];
  const out: RuleViolation[] = [];
  const cloud = spec.cloud;
  if (spec.provider === 'cloud-registry' && !isObject(cloud)) out.push({ field: 'spec.cloud', message: 'is required when spec.provider is cloud-registry', advice: 'A cloud registry needs its cloud settings: give at least its region, such as us-east-1.' });
  if (isObject(cloud)) {
    if (typeof cloud.region !== 'string' || cloud.region === '') out.push({ field: 'spec.cloud.region', message: 'is required', advice: 'Give the region the registry is in, such as us-east-1.' });
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
    out.push({
      field: 'spec.sync.tags.mode',
      message: `must be one of ${TAG_MODES.join(', ')}`,
      advice: 'Choose latest (each repository\'s newest tag) or pattern (the tags matching the tag patterns).',
    });
  }
  out.push(...patternViolations(tags.patterns, 'spec.sync.tags.patterns'));
  out.push(...minimum(tags.limit, IMAGE_REGISTRY_LIMITS.tagLimitMin, 'spec.sync.tags.limit'));
  return out;
}
