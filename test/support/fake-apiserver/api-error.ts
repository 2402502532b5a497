// An answer with a non-2xx status and the API server's Status body.
import type { KubeStatus } from '../../../kube/errors.js';

export class ApiError extends Error {
  constructor(readonly code: number, readonly body: KubeStatus) {
    super(body.message);
  }
}

export function status(code: number, reason: string, message: string, details?: KubeStatus['details']): KubeStatus {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code } as KubeStatus;
}
