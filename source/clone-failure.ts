// Why a clone failed, in words a person can act on: the status, the workspace page, `den ssh`
// and the Events all show this one message (the init container's termination message).
import { SshCloneError } from './ssh-transport.js';

/** The ref names no branch, tag or commit of the repository. */
export class MissingRefError extends Error {
  constructor(readonly ref: string) {
    super(`no branch, tag or commit ${ref}`);
  }
}

interface ErrorFacts {
  code?: string;
  message?: string;
  data?: { statusCode?: number; statusMessage?: string };
  cause?: unknown;
}

const UNREACHABLE = new Set(['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'UND_ERR_CONNECT_TIMEOUT']);
const CERTIFICATE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|TLS/;

/** The first system error code along the cause chain (fetch wraps the socket's error). */
function systemCode(err: unknown): string | undefined {
  for (let e = err as ErrorFacts | undefined, depth = 0; e && depth < 5; e = e.cause as ErrorFacts | undefined, depth++) {
    if (typeof e.code === 'string' && /^[A-Z_]+$/.test(e.code)) return e.code;
  }
  return undefined;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export function describeCloneFailure(err: unknown, request: { url: string; ref?: string; directory: string; credentialKept?: boolean }): string {
  const { url, ref, directory } = request;
  const host = hostOf(url);
  if (err instanceof SshCloneError) return err.message;
  const facts = (err ?? {}) as ErrorFacts;
  // isomorphic-git's clone says NotFoundError when the remote's HEAD names no branch: an empty repository.
  if (err instanceof MissingRefError || (facts.code === 'NotFoundError' && ref === undefined)) {
    return ref === undefined
      ? `Cloning ${url} failed: the repository has no default branch (it may be empty). Push a branch to it, or name a ref, then recreate the workspace.`
      : `Cloning ${url} failed: the repository has no branch, tag or commit "${ref}". Check the ref (it is case-sensitive), or leave it empty for the default branch, then recreate the workspace.`;
  }
  const status = facts.code === 'HttpError' ? facts.data?.statusCode : undefined;
  if (status === 401 || status === 403) {
    return request.credentialKept
      ? `Cloning ${url} failed: ${host} refused the git credential you keep for it (HTTP ${status}). The token may have expired or lack read access to this repository: set a new one (den git-credential set ${host}, or your profile page), then start the workspace again.`
      : `Cloning ${url} failed: ${host} refused access (HTTP ${status}). The repository is private or the address is wrong: keep a token for ${host} (den git-credential set ${host}, or your profile page) and start the workspace again, or check the address.`;
  }
  if (status === 404) {
    return `Cloning ${url} failed: ${host} has no repository at this address (HTTP 404). Check the address (and that the repository is public), then recreate the workspace.`;
  }
  if (status !== undefined) {
    return `Cloning ${url} failed: ${host} answered HTTP ${status}${facts.data?.statusMessage ? ` ${facts.data.statusMessage}` : ''}. Check the address; if it is right, the git server has trouble: try again later.`;
  }
  const code = systemCode(err);
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    return `Cloning ${url} failed: the home volume is full (${code}). Nothing was left behind; create the workspace with more storage, or free space in the home, then start it again.`;
  }
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
    return `Cloning ${url} failed: Den may not write into ~/${directory} (${code}). Choose another path, or ask an administrator to check the catalog entry's user id.`;
  }
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return `Cloning ${url} failed: the host ${host} cannot be found (${code}). Check the address for a typo; if it is right, the cluster cannot resolve it: ask an administrator.`;
  }
  if (code !== undefined && UNREACHABLE.has(code)) {
    return `Cloning ${url} failed: ${host} cannot be reached (${code}). Check the address and port; if they are right, the cluster cannot reach that host (a firewall or network policy): ask an administrator.`;
  }
  if (code !== undefined && CERTIFICATE.test(code)) {
    return `Cloning ${url} failed: ${host}'s TLS certificate is not trusted (${code}). Use an address with a certificate the cluster trusts, or ask an administrator.`;
  }
  if (facts.code === 'SmartHttpError' || facts.code === 'EmptyServerResponseError' || facts.code === 'ParseError') {
    return `Cloning ${url} failed: ${host} does not answer as a git server at this address. Check that it is the repository's clone address (it often ends in .git).`;
  }
  if (facts.code === 'UrlParseError' || facts.code === 'UnknownTransportError') {
    return `Cloning ${url} failed: the address cannot be cloned (${facts.message ?? facts.code}). Give the repository's https or SSH address.`;
  }
  const said = (facts.message ?? String(err)).replace(/\s+/g, ' ').replace(/[.\s]+$/, '').slice(0, 300);
  return `Cloning ${url} failed: ${said}. Nothing was left behind; check the address and ref, then start the workspace again.`;
}
