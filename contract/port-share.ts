// Who may open a port of a workspace through Den's preview (docs/preview.md, "Sharing a port"):
// the owner only (the default: a port not listed), every signed-in person of this Den, named
// people, or anyone (public, only where the install configuration allows it). The share is
// recorded on the Workspace itself, `spec.sharedPorts`, which only those the cluster lets update
// the Workspace (its owner) can write; this is the one home of its rules, for the CRD schema,
// REST, the page, the CLI and the preview proxy alike.
import { isDns1123Label } from '../kube/names.js';
import { arrayOf, integer, object, string, type JsonSchema } from './schema.js';

/** The levels, least open first; `owner` is never stored (a port not listed is the owner's only). */
export const PORT_SHARE_LEVELS = ['owner', 'authenticated', 'people', 'public'] as const;
export type PortShareLevel = (typeof PORT_SHARE_LEVELS)[number];
export type StoredPortShareLevel = Exclude<PortShareLevel, 'owner'>;

/** What a level means, as the page and the CLI say it. */
export const PORT_SHARE_WORDS: Record<PortShareLevel, string> = {
  owner: 'only you',
  authenticated: 'every signed-in person of this Den',
  people: 'the people named',
  public: 'anyone with the address, signed in or not',
};

/** Who a port's share admits, in words: the people's names for level people. */
export function portShareInWords(share: { level: PortShareLevel; people?: readonly string[] }): string {
  return share.level === 'people' ? (share.people ?? []).join(', ') : PORT_SHARE_WORDS[share.level];
}

export const PORT_SHARE_LIMITS = { ports: 32, people: 50 } as const;

/** The install setting that allows public ports (den.config.yaml), as refusals name it. */
export const PUBLIC_PORTS_SETTING = 'server.apps.allowPublicPorts';

/** One entry of `spec.sharedPorts`. */
export interface PortShare {
  port: number;
  level: StoredPortShareLevel;
  /** UserSpace names (the person part of an app host), for `people` only. */
  people?: string[];
}

/** The CRD schema of `spec.sharedPorts`. */
export function sharedPortsSchema(): JsonSchema {
  return arrayOf(
    'Ports opened through Den\'s host-based preview to more people than the owner. A port not listed is the owner\'s only. Path-based previews (on Den\'s own origin) always serve the owner only.',
    object(
      'One shared port.',
      {
        port: integer('TCP port in the workspace, 1-65535.', { minimum: 1, maximum: 65535 }),
        level: string('authenticated: every signed-in person of this Den; people: the UserSpaces in people; public: anyone, signed in or not, and only where the install configuration allows it (server.apps.allowPublicPorts; elsewhere a public port is served as authenticated).', {
          enum: ['authenticated', 'people', 'public'],
        }),
        people: arrayOf('Names of the UserSpaces of the people it is shared with (level people only).', string('A UserSpace name.', { minLength: 1, maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' }), {
          maxItems: PORT_SHARE_LIMITS.people,
          'x-kubernetes-list-type': 'set',
        }),
      },
      {
        required: ['port', 'level'],
        'x-kubernetes-validations': [{ rule: "self.level == 'people' ? (has(self.people) && size(self.people) > 0) : (!has(self.people) || size(self.people) == 0)", message: 'people is required with level people, and only with it' }],
      },
    ),
    { maxItems: PORT_SHARE_LIMITS.ports, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['port'] },
  );
}

/** A change of one port's share, as REST, the page and the CLI ask for it. */
export interface PortShareRequest {
  port: number;
  level: PortShareLevel;
  people: string[];
}

/** What an install allows: host-based previews on (an apps domain), and public ports. */
export interface PortShareInstall {
  hostBased: boolean;
  allowPublicPorts: boolean;
}

/** A refusal naming the field it is about. */
export interface PortShareProblem {
  field: 'port' | 'level' | 'people';
  message: string;
}

/** Parses a people list written as `a,b c` (the form field and the CLI's flag). */
export function peopleOf(text: string): string[] {
  return [...new Set(text.split(/[\s,]+/).filter(Boolean))];
}

/** Why a request cannot be stored on this install, or undefined when it can. */
export function portShareProblem(req: { port: unknown; level: unknown; people: unknown }, install: PortShareInstall): PortShareProblem | undefined {
  const { port, level, people } = req;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) return { field: 'port', message: 'must be a TCP port, 1 to 65535' };
  if (typeof level !== 'string' || !(PORT_SHARE_LEVELS as readonly string[]).includes(level)) return { field: 'level', message: `must be one of ${PORT_SHARE_LEVELS.join(', ')}` };
  if (!Array.isArray(people) || people.some((p) => typeof p !== 'string')) return { field: 'people', message: 'must be a list of names' };
  if (level !== 'owner' && !install.hostBased) {
    return { field: 'level', message: 'this Den has no host-based previews (server.apps.domain), and path-based previews, on Den\'s own origin, serve only the owner: a port can be shared only where an administrator sets an apps domain' };
  }
  if (level === 'public' && !install.allowPublicPorts) return { field: 'level', message: `public ports are not allowed on this Den: an administrator must set ${PUBLIC_PORTS_SETTING}: true in the install configuration` };
  if (level !== 'people' && people.length > 0) return { field: 'people', message: `people go with level people, not ${level}` };
  if (level === 'people' && people.length === 0) return { field: 'people', message: 'name at least one person (their Den user name) to share with' };
  if (people.length > PORT_SHARE_LIMITS.people) return { field: 'people', message: `at most ${PORT_SHARE_LIMITS.people} people` };
  const bad = (people as string[]).find((p) => !isDns1123Label(p));
  if (bad !== undefined) return { field: 'people', message: `"${bad.slice(0, 80)}" is not a Den user name (lower-case letters, digits and -)` };
  return undefined;
}

/** A refusal of a stored `spec.sharedPorts` (the webhook's, beside the schema's). */
export interface SharedPortsViolation {
  field: string;
  message: string;
  advice: string;
}

const SHARE_ADVICE = 'List each shared port once, as port and level (authenticated, people or public), with people (Den user names) for level people only.';

/**
 * What is wrong with `spec.sharedPorts` as written to the API server: the schema's rules again
 * (for API servers that do not check a CRD's validation rules) and one entry per port.
 */
export function sharedPortsViolations(stored: unknown): SharedPortsViolation[] {
  if (stored === undefined || stored === null) return [];
  const field = 'spec.sharedPorts';
  if (!Array.isArray(stored)) return [{ field, message: 'must be a list', advice: SHARE_ADVICE }];
  const violations: SharedPortsViolation[] = [];
  if (stored.length > PORT_SHARE_LIMITS.ports) violations.push({ field, message: `lists ${stored.length} ports; at most ${PORT_SHARE_LIMITS.ports}`, advice: SHARE_ADVICE });
  const seen = new Set<unknown>();
  stored.forEach((raw: unknown, i) => {
    const at = `${field}[${i}]`;
    const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const problem = portShareProblem({ port: entry.port, level: entry.level, people: entry.people ?? [] }, { hostBased: true, allowPublicPorts: true });
    if (problem) violations.push({ field: `${at}.${problem.field}`, message: problem.message, advice: SHARE_ADVICE });
    else if (entry.level === 'owner') violations.push({ field: `${at}.level`, message: 'owner is not stored: a port not listed is the owner\'s only', advice: SHARE_ADVICE });
    if (seen.has(entry.port)) violations.push({ field: `${at}.port`, message: `port ${String(entry.port)} is listed twice: one entry per port`, advice: SHARE_ADVICE });
    seen.add(entry.port);
  });
  return violations;
}

/** The valid entries of a stored `spec.sharedPorts` (one the schema never checked may hold others). */
export function sharedPortsOf(stored: unknown): PortShare[] {
  if (!Array.isArray(stored)) return [];
  const out: PortShare[] = [];
  for (const raw of stored as Record<string, unknown>[]) {
    const level = raw?.level;
    const people = Array.isArray(raw?.people) ? (raw.people as unknown[]).filter((p): p is string => typeof p === 'string' && isDns1123Label(p)) : [];
    if (typeof raw?.port !== 'number' || (level !== 'authenticated' && level !== 'people' && level !== 'public')) continue;
    if (out.some((s) => s.port === raw.port)) continue;
    out.push(level === 'people' ? { port: raw.port, level, people } : { port: raw.port, level });
  }
  return out;
}

/** The level of `port` as stored (owner when it is not listed). */
export function portShareOf(stored: unknown, port: number): PortShare | { port: number; level: 'owner' } {
  return sharedPortsOf(stored).find((s) => s.port === port) ?? { port, level: 'owner' };
}

/** `spec.sharedPorts` with `req` applied: its entry replaced, or removed for `owner`; sorted by port. */
export function withPortShare(stored: unknown, req: PortShareRequest): PortShare[] {
  const rest = sharedPortsOf(stored).filter((s) => s.port !== req.port);
  if (req.level !== 'owner') rest.push(req.level === 'people' ? { port: req.port, level: 'people', people: [...req.people].sort() } : { port: req.port, level: req.level });
  return rest.sort((a, b) => a.port - b.port);
}

/** Who asks for a shared port: a signed-in person (their UserSpace name), or nobody signed in. */
export type PortViewer = { userspace: string } | undefined;

/**
 * Whether `share` lets `viewer` (not the owner) open the port. A public port on an install that
 * does not allow them counts as shared with signed-in people only.
 */
export function shareAdmits(share: { level: PortShareLevel; people?: string[] }, viewer: PortViewer, allowPublicPorts: boolean): boolean {
  switch (share.level) {
    case 'public':
      return allowPublicPorts || viewer !== undefined;
    case 'authenticated':
      return viewer !== undefined;
    case 'people':
      return viewer !== undefined && (share.people ?? []).includes(viewer.userspace);
    default:
      return false;
  }
}
