// ServiceAccount tokens as kube-apiserver treats them: a TokenRequest token names the
// ServiceAccount's UID (and, when bound, the UID of a pod or Secret), carries audiences, and
// is accepted only while those very objects exist and one audience is the API server's own
// (pkg/serviceaccount/claims.go). A ServiceAccount deleted and created again under the same
// name is a new one: tokens of the old one answer 401 like any unknown token.
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES, type ResourceType } from '../../../kube/resources.js';
import { ApiError, status } from './api-error.js';
import type { UserInfo } from './rbac.js';

/** The audience kube-apiserver accepts by default (its --api-audiences is its issuer). */
export const API_AUDIENCE = 'https://kubernetes.default.svc';

/** Kinds a token may be bound to (TokenRequest spec.boundObjectRef). */
const BINDABLE: Record<string, ResourceType> = { Pod: RESOURCES.pod, Secret: RESOURCES.secret };

export interface ObjectRef {
  type: ResourceType;
  namespace: string;
  name: string;
  uid: string;
}

export interface TokenBinding {
  serviceAccount: ObjectRef;
  /** The object of a bound token: the token ends with it. */
  boundObject?: ObjectRef;
  audiences: string[];
}

export interface TokenEntry {
  user: UserInfo;
  /** Milliseconds since the epoch; absent for static tokens. */
  expires?: number;
  /** Absent for static tokens (the tokens file of a real API server). */
  binding?: TokenBinding;
}

export type ObjectLookup = (type: ResourceType, namespace: string, name: string) => KubeObject | undefined;

/** True while every object the token names still exists with the UID it was minted for, and an audience is accepted. */
export function tokenAccepted(entry: TokenEntry, lookup: ObjectLookup, acceptedAudiences: readonly string[], now: number): boolean {
  if (entry.expires !== undefined && entry.expires < now) return false;
  const binding = entry.binding;
  if (!binding) return true;
  if (!binding.audiences.some((a) => acceptedAudiences.includes(a))) return false;
  const alive = (ref: ObjectRef) => lookup(ref.type, ref.namespace, ref.name)?.metadata?.uid === ref.uid;
  return alive(binding.serviceAccount) && (!binding.boundObject || alive(binding.boundObject));
}

interface TokenRequestSpec {
  audiences?: unknown;
  expirationSeconds?: unknown;
  boundObjectRef?: { kind?: unknown; apiVersion?: unknown; name?: unknown; uid?: unknown } | null;
}

/** The binding a TokenRequest for `serviceAccount` asks for; throws the API server's refusal. */
export function bindingOf(serviceAccount: KubeObject, spec: TokenRequestSpec, lookup: ObjectLookup): TokenBinding {
  const namespace = serviceAccount.metadata!.namespace!;
  const audiences = Array.isArray(spec.audiences) && spec.audiences.length > 0 ? spec.audiences.map(String) : [API_AUDIENCE];
  const binding: TokenBinding = { serviceAccount: { type: RESOURCES.serviceAccount, namespace, name: serviceAccount.metadata!.name!, uid: serviceAccount.metadata!.uid! }, audiences };
  const ref = spec.boundObjectRef;
  if (!ref) return binding;
  const kind = String(ref.kind ?? '');
  const type = BINDABLE[kind];
  if (!type || ref.apiVersion !== type.apiVersion) {
    throw new ApiError(400, status(400, 'BadRequest', `cannot bind token for object of type ${kind || '<empty>'}`));
  }
  const name = String(ref.name ?? '');
  const found = lookup(type, namespace, name);
  if (!found) throw new ApiError(404, status(404, 'NotFound', `${type.plural} "${name}" not found`, { name, kind: type.plural }));
  const uid = found.metadata!.uid!;
  if (ref.uid !== undefined && ref.uid !== '' && ref.uid !== uid) {
    throw new ApiError(409, status(409, 'Conflict', `the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`));
  }
  binding.boundObject = { type, namespace, name, uid };
  return binding;
}
