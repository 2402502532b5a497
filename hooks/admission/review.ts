// The admission.k8s.io/v1 AdmissionReview envelope: checked at the edge, answered in the
// shape the API server expects (the request's uid, allowed, a Status or a JSONPatch).
import { array, mixed, object, string, ValidationError } from 'yup';
import type { KubeObject } from '../../kube/client.js';
import type { JsonPatchOp } from './mutate-workspace.js';
import type { DenialCause, DenialStatus } from './violations.js';

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';

export interface UserInfo {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  userInfo: UserInfo;
  object?: KubeObject | null;
  oldObject?: KubeObject | null;
  dryRun?: boolean;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { status: 'Failure'; code: number; reason: string; message: string; details?: { causes: DenialCause[] } };
  patchType?: 'JSONPatch';
  /** base64 of the JSONPatch document. */
  patch?: string;
  warnings?: string[];
  /** Rules that refused (see DenialStatus); `answer` leaves them out of the review. */
  rules?: string[];
}

export interface AdmissionReview {
  apiVersion: string;
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

const kubeObject = mixed<KubeObject>((v): v is KubeObject => typeof v === 'object' && !Array.isArray(v))
  .nullable()
  .typeError('${path} must be an object or null');

const groupVersionKind = object({
  group: string().defined('${path} is required').strict(),
  version: string().required('${path} is required').strict(),
  kind: string().required('${path} is required').strict(),
});

const reviewSchema = object({
  apiVersion: string().oneOf([ADMISSION_API_VERSION], `apiVersion must be ${ADMISSION_API_VERSION}`).required('apiVersion is required'),
  kind: string().oneOf(['AdmissionReview'], 'kind must be AdmissionReview').required('kind is required'),
  request: object({
    uid: string().required('request.uid is required').strict(),
    kind: groupVersionKind.required('request.kind is required'),
    namespace: string().strict(),
    name: string().strict(),
    operation: string().oneOf(['CREATE', 'UPDATE', 'DELETE', 'CONNECT'], 'request.operation must be CREATE, UPDATE, DELETE or CONNECT').required('request.operation is required'),
    userInfo: object({
      username: string().required('request.userInfo.username is required').strict(),
      uid: string().strict(),
      groups: array(string().strict().defined()).strict(),
      extra: mixed().optional(),
    }).required('request.userInfo is required'),
    object: kubeObject,
    oldObject: kubeObject,
  }).required('request is required'),
});

export class ReviewShapeError extends Error {
  override readonly name = 'ReviewShapeError';
}

/** Checks the envelope; the reviewed objects inside are judged by the rules, not here. */
export function parseReview(body: unknown): AdmissionReview & { request: AdmissionRequest } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new ReviewShapeError('the body must be an AdmissionReview object');
  try {
    reviewSchema.validateSync(body, { strict: true, abortEarly: false });
  } catch (err) {
    if (err instanceof ValidationError) throw new ReviewShapeError(err.errors.join('; '));
    throw err;
  }
  return body as AdmissionReview & { request: AdmissionRequest };
}

export function allow(uid: string, warnings: string[] = []): AdmissionResponse {
  return warnings.length ? { uid, allowed: true, warnings } : { uid, allowed: true };
}

export function deny(uid: string, denial: DenialStatus): AdmissionResponse {
  return {
    uid,
    allowed: false,
    status: { status: 'Failure', code: denial.code, reason: denial.reason, message: denial.message, ...(denial.causes ? { details: { causes: denial.causes } } : {}) },
    ...(denial.rules ? { rules: denial.rules } : {}),
  };
}

export function allowWithPatch(uid: string, patch: JsonPatchOp[]): AdmissionResponse {
  if (patch.length === 0) return { uid, allowed: true };
  return { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') };
}

export function answer(response: AdmissionResponse): AdmissionReview {
  const { rules: _rules, ...wire } = response;
  return { apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response: wire };
}
