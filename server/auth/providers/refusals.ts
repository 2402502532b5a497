// Why a sign-in with a provider did not happen, as a status and a sentence for the person.
// Nothing here carries a token, a code or a secret.

export class LoginRefused extends Error {
  override readonly name = 'LoginRefused';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The provider could not be reached or answered nonsense (502). */
export function unreachable(label: string, detail: string): LoginRefused {
  return new LoginRefused(502, `${label} cannot be reached right now (${detail}); try again in a moment`);
}

/** Plain description of a network-level failure, without URLs that might carry parameters. */
export function networkDetail(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timed out';
  return e?.cause?.code ?? e?.message ?? 'network error';
}

/** Keeps what a provider says short and printable before it goes on a page. */
export function providerWords(value: unknown, max = 200): string {
  const text = typeof value === 'string' ? value : '';
  const clean = text.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
  return clean.length > max ? `${clean.slice(0, max)}…` : clean;
}
