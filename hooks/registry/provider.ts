// The one small interface a registry provider implements (SPEC 9: a second provider is a new
// value of spec.provider and a new implementation here), and the failures a person can act on.
import type { ImageRegistrySpec, RegistryListing } from './types.js';

export interface ListRequest {
  spec: ImageRegistrySpec;
  /** Repositories the include and exclude patterns let through; the others are not listed further. */
  wantsRepository(name: string): boolean;
  signal: AbortSignal;
}

export interface RegistryProvider {
  list(request: ListRequest): Promise<RegistryListing>;
}

/** Condition reasons of a failed sync, each one a thing an administrator can fix or wait out. */
export const SYNC_FAILURES = [
  'AccessDenied',
  'ExpiredCredentials',
  'NoCredentials',
  'UnknownRegion',
  'Throttled',
  'InvalidPattern',
  'InvalidSpec',
  'Unreachable',
  'TimedOut',
  'ListingFailed',
] as const;
export type SyncFailureReason = (typeof SYNC_FAILURES)[number];

/** A listing that failed, with the reason for the Degraded condition and a message without secrets. */
export class RegistryError extends Error {
  override readonly name = 'RegistryError';
  constructor(readonly reason: SyncFailureReason, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
