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

export function parseFieldSelector(selector: string | undefined): (obj: any) => boolean {
  if (!selector) return () => true;
  const reqs = selector.split(',').filter(Boolean).map((term) => {
    const neg = term.includes('!=');
    const [path, value] = term.split(neg ? '!=' : /==?/) as [string, string];
    return (obj: any) => {
      const actual = path.split('.').reduce((o, k) => (o == null ? undefined : o[k]), obj);
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
