// The page templating: a tagged template `html\`…\`` whose interpolations are escaped for
// HTML text and quoted attribute values, unless they are already `Html` (another template's
// result). Arrays are joined, and null,
// undefined and false render nothing, so `${cond && html\`…\`}` and `${items.map(...)}` read
// naturally. Attributes must be quoted in the templates; the escaping covers both quote kinds.

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export type Interpolation = Html | string | number | boolean | null | undefined | readonly Interpolation[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}
