// Label and field selectors as the API server parses them (equality and set-less forms).

type Requirement = (labels: Record<string, string>) => boolean;

export function parseLabelSelector(selector: string | undefined): (labels: Record<string, string> | undefined) => boolean {
  if (!selector) return () => true;
  const reqs: Requirement[] = [];
  for (const raw of splitTopLevel(selector)) {
    const term = raw.trim();
    if (!term) continue;
    let m: RegExpExecArray | null;
    if ((m = /^([^!=\s]+)\s*(?:==|=)\s*(.*)$/.exec(term)) && !term.includes('!=')) {
      const [, k, v] = m;
      reqs.push((l) => l[k!] === v);
    } else if ((m = /^([^!=\s]+)\s*!=\s*(.*)$/.exec(term))) {
      const [, k, v] = m;
      reqs.push((l) => l[k!] !== v);
    } else if ((m = /^([^\s]+)\s+(in|notin)\s+\((.*)\)$/.exec(term))) {
      const [, k, op, list] = m;
      const values = list!.split(',').map((s) => s.trim());
      reqs.push(op === 'in' ? (l) => values.includes(l[k!] as string) : (l) => !values.includes(l[k!] as string));
    } else if ((m = /^!([^\s]+)$/.exec(term))) {
      const k = m[1]!;
      reqs.push((l) => !(k in l));
    } else {
      const k = term;
      reqs.push((l) => k in l);
    }
  }
  return (labels) => reqs.every((r) => r(labels ?? {}));
}

function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

type FieldGetter = (obj: any) => unknown;

const path = (p: string): FieldGetter => (obj) => p.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);

const EVENT_FIELDS: Record<string, FieldGetter> = {
  'involvedObject.kind': path('involvedObject.kind'),
  'involvedObject.namespace': path('involvedObject.namespace'),
  'involvedObject.name': path('involvedObject.name'),
  'involvedObject.uid': path('involvedObject.uid'),
  'involvedObject.apiVersion': path('involvedObject.apiVersion'),
  'involvedObject.resourceVersion': path('involvedObject.resourceVersion'),
  'involvedObject.fieldPath': path('involvedObject.fieldPath'),
  reason: path('reason'),
  reportingComponent: path('reportingComponent'),
  source: path('source.component'),
  type: path('type'),
};

/** The field labels kube-apiserver's built-in resources accept beyond metadata.name and metadata.namespace (`<plural>.<group>`). */
const BUILT_IN_FIELDS: Record<string, Record<string, FieldGetter>> = {
  'pods.': Object.fromEntries(['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName'].map((p) => [p, path(p)])),
  'events.': EVENT_FIELDS,
  'secrets.': { type: path('type') },
  'namespaces.': { 'status.phase': path('status.phase') },
  'replicasets.apps': { 'status.replicas': path('status.replicas') },
  'nodes.': { 'spec.unschedulable': path('spec.unschedulable') },
  'jobs.batch': { 'status.successful': path('status.successful') },
};

/**
 * A field selector the server refuses (400): `field label not supported: <label>` from a kind
 * with field labels of its own, else the generic conversion's `"<label>" is not a known field selector: …`.
 */
export class FieldSelectorError extends Error {}

/**
 * Parses a field selector against the fields the resource supports (`<plural>.<group>`;
 * `selectable` are a CRD version's selectableFields, `custom` that a CRD serves it), throwing
 * FieldSelectorError on any other.
 */
export function parseFieldSelector(selector: string | undefined, resource: string, selectable: string[] = [], custom = false): (obj: any) => boolean {
  if (!selector) return () => true;
  const fields: Record<string, FieldGetter> = { 'metadata.name': path('metadata.name'), 'metadata.namespace': path('metadata.namespace'), ...BUILT_IN_FIELDS[resource] };
  for (const p of selectable) fields[p] = path(p);
  const reqs = selector.split(',').filter(Boolean).map((term) => {
    const neg = term.includes('!=');
    const [label, value] = term.split(neg ? '!=' : /==?/) as [string, string];
    const get = fields[label.trim()];
    if (!get) {
      const own = custom || resource in BUILT_IN_FIELDS || resource.endsWith('den.dev');
      throw new FieldSelectorError(own ? `field label not supported: ${label.trim()}` : `"${label.trim()}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
    }
    return (obj: any) => {
      const actual = get(obj);
      return neg ? String(actual ?? '') !== value : String(actual ?? '') === value;
    };
  });
  return (obj) => reqs.every((r) => r(obj));
}

/**
 * The name a field selector requires (`metadata.name=x`), which kube-apiserver hands to the
 * authorizer as the name of a list or watch, so RBAC resourceNames can allow it.
 */
export function fieldSelectorName(selector: string | undefined): string | undefined {
  for (const term of (selector ?? '').split(',')) {
    const m = /^metadata\.name==?(.+)$/.exec(term);
    if (m) return m[1];
  }
  return undefined;
}
