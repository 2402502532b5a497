// Kubernetes' grammar for object names, label keys and values and annotation keys, with the
// messages kube-apiserver gives (k8s.io/apimachinery/pkg/util/validation). Whatever Den names
// or labels must pass these, or the API server refuses the write that carries it.

// Every other reader of these grammars (REST schemas, CRD patterns, install settings, the
// gateway, the terminal path) imports them from here.
export const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
export const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
export const DNS1035_LABEL_FMT = '[a-z]([-a-z0-9]*[a-z0-9])?';
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
/** `[prefix/]name`, the prefix a DNS subdomain: a label or annotation key, or a resource name such as nvidia.com/gpu. */
export const PREFIXED_QUALIFIED_NAME_FMT = `(${DNS1123_SUBDOMAIN_FMT}/)?(${QUALIFIED_NAME_FMT})`;

export const DNS1123_LABEL_MAX = 63;
export const DNS1123_SUBDOMAIN_MAX = 253;
export const DNS1035_LABEL_MAX = 63;
export const LABEL_VALUE_MAX = 63;
const QUALIFIED_NAME_MAX = 63;
/** The total size kube-apiserver allows for all of an object's annotations. */
export const ANNOTATIONS_MAX_BYTES = 256 * 1024;

const whole = (fmt: string) => new RegExp(`^${fmt}$`);
/** The pattern alone, without the length limit (DNS1123_LABEL_MAX): for schemas that state the two apart. */
export const DNS1123_LABEL = whole(DNS1123_LABEL_FMT);
/** The pattern alone, without the length limit (DNS1123_SUBDOMAIN_MAX). */
export const DNS1123_SUBDOMAIN = whole(DNS1123_SUBDOMAIN_FMT);
/** The pattern alone, without the length limit (DNS1035_LABEL_MAX): a Service name. */
export const DNS1035_LABEL = whole(DNS1035_LABEL_FMT);
const QUALIFIED_NAME = whole(QUALIFIED_NAME_FMT);
const LABEL_VALUE = whole(LABEL_VALUE_FMT);

const maxLen = (n: number) => `must be no more than ${n} characters`;
function regexError(msg: string, fmt: string, ...examples: string[]): string {
  const e = examples.map((x) => `'${x}', `).join(' or ');
  return `${msg} (e.g. ${e}regex used for validation is '${fmt}')`;
}

function check(value: string, max: number, re: RegExp, msg: string, fmt: string, examples: string[]): string[] {
  const errs: string[] = [];
  if (value.length > max) errs.push(maxLen(max));
  if (!re.test(value)) errs.push(regexError(msg, fmt, ...examples));
  return errs;
}

export function dns1123LabelProblems(value: string): string[] {
  return check(value, DNS1123_LABEL_MAX, DNS1123_LABEL, "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character", DNS1123_LABEL_FMT, ['my-name', '123-abc']);
}

export function dns1123SubdomainProblems(value: string): string[] {
  return check(value, DNS1123_SUBDOMAIN_MAX, DNS1123_SUBDOMAIN, "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character", DNS1123_SUBDOMAIN_FMT, ['example.com']);
}

/** What a Service name must be: unlike a namespace name, it starts with a letter. */
export function dns1035LabelProblems(value: string): string[] {
  return check(value, DNS1035_LABEL_MAX, DNS1035_LABEL, "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character", DNS1035_LABEL_FMT, ['my-name', 'abc-123']);
}

export function labelValueProblems(value: string): string[] {
  return check(value, LABEL_VALUE_MAX, LABEL_VALUE, "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", LABEL_VALUE_FMT, ['MyValue', 'my_value', '12345']);
}

/** A label or annotation key: `[prefix/]name`, the prefix a DNS subdomain. */
export function qualifiedNameProblems(value: string): string[] {
  const parts = value.split('/');
  let name: string;
  const errs: string[] = [];
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else errs.push(...dns1123SubdomainProblems(prefix).map((m) => `prefix part ${m}`));
  } else {
    return [regexError("a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc') + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > QUALIFIED_NAME_MAX) errs.push(`name part ${maxLen(QUALIFIED_NAME_MAX)}`);
  if (!QUALIFIED_NAME.test(name)) errs.push(`name part ${regexError("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character", QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  return errs;
}

export const isDns1123Label = (value: string): boolean => dns1123LabelProblems(value).length === 0;
export const isDns1123Subdomain = (value: string): boolean => dns1123SubdomainProblems(value).length === 0;
export const isQualifiedName = (value: string): boolean => qualifiedNameProblems(value).length === 0;
export const isLabelValue = (value: string): boolean => labelValueProblems(value).length === 0;

/**
 * kube-apiserver's refusals of an object's labels and annotation keys, each as
 * `<field>: Invalid value: "<value>": <reason>`.
 */
export function metadataProblems(metadata: { labels?: Record<string, unknown>; annotations?: Record<string, unknown> } | undefined): string[] {
  const out: string[] = [];
  for (const [key, value] of Object.entries(metadata?.labels ?? {})) {
    for (const m of qualifiedNameProblems(key)) out.push(`metadata.labels: Invalid value: ${JSON.stringify(key)}: ${m}`);
    if (typeof value !== 'string') out.push(`metadata.labels: Invalid value: ${JSON.stringify(value)}: must be a string`);
    else for (const m of labelValueProblems(value)) out.push(`metadata.labels: Invalid value: ${JSON.stringify(value)}: ${m}`);
  }
  let size = 0;
  for (const [key, value] of Object.entries(metadata?.annotations ?? {})) {
    for (const m of qualifiedNameProblems(key.toLowerCase())) out.push(`metadata.annotations: Invalid value: ${JSON.stringify(key)}: ${m}`);
    size += key.length + String(value).length;
  }
  if (size > ANNOTATIONS_MAX_BYTES) out.push(`metadata.annotations: Too long: must have at most ${ANNOTATIONS_MAX_BYTES} bytes`);
  return out;
}

/**
 * Code-point order, as Go's sort.Strings and kubectl order names: for sorting what Den renders.
 * Not `localeCompare`, whose order is ICU's and may move with the ICU of another Node (a child
 * rendered in another order is applied again); its first call also touches ICU's collation data
 * (3.2 MiB of RSS in a bare process; no difference was measurable in a converging manager).
 */
export function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
