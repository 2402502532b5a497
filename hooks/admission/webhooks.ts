// The three webhooks as functions of one AdmissionRequest and a read-only view of the caches.
// No I/O here except the administrator question and a refusal's second look, which are passed in.
import { imageRegistryViolations } from '../../contract/image-registry-rules.js';
import { declaredAppViolations } from '../../contract/workspace-image-rules.js';
import { GROUP, KINDS, userSpaceOfNamespace, WEBHOOK_EXCLUDED_NAMESPACES } from '../../kube/group.js';
import { DIRECT, type DecisionMemo } from './memo.js';
import { mutateWorkspace } from './mutate-workspace.js';
import type { PersistentVolumeClaim, UserSpace, Workspace, WorkspaceImage } from './objects.js';
import { allow, allowWithPatch, deny, type AdmissionRequest, type AdmissionResponse, type UserInfo } from './review.js';
import { decideUserSpaceUpdate, needsAdminCheck, userSpaceChanges } from './validate-userspace.js';
import { validateWorkspace } from './validate-workspace.js';
import { denialStatus, type RuleId } from './violations.js';

/** What the webhooks read, answered from informer caches. */
export interface ClusterView {
  workspaceImage(name: string): WorkspaceImage | undefined;
  userSpace(name: string): UserSpace | undefined;
  workspaces(namespace: string): Workspace[];
  claims(namespace: string): PersistentVolumeClaim[];
}

/** What a Workspace review in `namespace` naming `imageName` reads, as the API server has it now (hooks/admission/fresh-view.ts). */
export type FreshView = (namespace: string, imageName: string | undefined) => Promise<ClusterView>;

export interface WorkspaceWebhookConfig {
  gpuResource: string;
  memo?: DecisionMemo;
}

/** Asks the cluster whether a person is an administrator (a SubjectAccessReview). */
export type AdminCheck = (user: UserInfo) => Promise<boolean>;

function isExcluded(namespace: string | undefined): boolean {
  return namespace !== undefined && (WEBHOOK_EXCLUDED_NAMESPACES as readonly string[]).includes(namespace);
}

/** A request for another kind means the webhook configuration is wrong: refuse loudly. */
function wrongKind(request: AdmissionRequest, kind: string): AdmissionResponse | undefined {
  if (request.kind.group === GROUP && request.kind.kind === kind) return undefined;
  const got = `${request.kind.group || 'core'}/${request.kind.kind}`;
  return deny(request.uid, { code: 400, reason: 'Invalid', message: `this webhook reviews ${GROUP}/${kind} objects, not ${got}; check the webhook configuration` });
}

function missingObject(request: AdmissionRequest): AdmissionResponse {
  return deny(request.uid, { code: 400, reason: 'Invalid', message: `the review of a ${request.operation} carries no object` });
}

function ownerOf(view: ClusterView, namespace: string): UserSpace | undefined {
  const name = userSpaceOfNamespace(namespace);
  return name ? view.userSpace(name) : undefined;
}

export function reviewWorkspaceMutation(request: AdmissionRequest, view: ClusterView): AdmissionResponse {
  if (isExcluded(request.namespace) || request.operation !== 'CREATE') return allow(request.uid);
  const wrong = wrongKind(request, KINDS.workspace);
  if (wrong) return wrong;
  const object = request.object as Workspace | null | undefined;
  if (!object) return missingObject(request);
  const namespace = request.namespace ?? object.metadata?.namespace ?? '';
  const patch = mutateWorkspace({ object, userSpace: ownerOf(view, namespace), username: request.userInfo.username });
  return allowWithPatch(request.uid, patch);
}

export function reviewWorkspaceValidation(request: AdmissionRequest, view: ClusterView, config: WorkspaceWebhookConfig, now: Date): AdmissionResponse {
  if (isExcluded(request.namespace) || (request.operation !== 'CREATE' && request.operation !== 'UPDATE')) return allow(request.uid);
  const wrong = wrongKind(request, KINDS.workspace);
  if (wrong) return wrong;
  const object = request.object as Workspace | null | undefined;
  if (!object) return missingObject(request);
  const namespace = request.namespace ?? object.metadata?.namespace ?? '';
  const imageName = object.spec?.imageRef?.name;
  const image = typeof imageName === 'string' && imageName ? view.workspaceImage(imageName) : undefined;
  const violations = validateWorkspace({
    operation: request.operation,
    namespace,
    object,
    oldObject: (request.oldObject as Workspace | null | undefined) ?? undefined,
    image,
    userSpace: ownerOf(view, namespace),
    workspaces: view.workspaces(namespace),
    claims: view.claims(namespace),
    gpuResource: config.gpuResource,
    now,
    memo: config.memo,
  });
  const denial = denialStatus(violations);
  if (denial) return deny(request.uid, denial);
  return allow(request.uid, imageWarnings(imageName, image, now));
}

/** The rules whose decision rests on what the caches hold (the rest read the reviewed object alone). */
const RULES_READING_CACHES: ReadonlySet<string> = new Set<RuleId>(['namespace-owner', 'image-exists', 'image-on-offer', 'image-root', 'quota', 'unique-name']);

/**
 * The validation, and before a refusal that rests on the caches the same decision on what the
 * API server holds now (hooks/admission/fresh-view.ts): the answer is the second one. Should the
 * API server not answer, the cache's refusal stands.
 */
export async function reviewWorkspaceValidationRechecked(
  request: AdmissionRequest,
  view: ClusterView,
  fresh: FreshView,
  config: WorkspaceWebhookConfig & { onReversed?: (cached: AdmissionResponse) => void },
  now: Date,
): Promise<AdmissionResponse> {
  const cached = reviewWorkspaceValidation(request, view, config, now);
  const object = request.object as Workspace | null | undefined;
  const namespace = request.namespace ?? object?.metadata?.namespace;
  if (cached.allowed || !object || !namespace || !cached.rules?.some((rule) => RULES_READING_CACHES.has(rule))) return cached;
  let current: ClusterView;
  try {
    const imageName = object.spec?.imageRef?.name;
    current = await fresh(namespace, typeof imageName === 'string' && imageName ? imageName : undefined);
  } catch {
    return cached;
  }
  const answer = reviewWorkspaceValidation(request, current, config, now);
  if (answer.allowed) config.onReversed?.(cached);
  return answer;
}

/** SPEC 2.2: an entry with a future `deprecateAt` is fully usable, with a warning. */
function imageWarnings(imageName: string | undefined, image: WorkspaceImage | undefined, now: Date): string[] {
  const at = image?.spec?.deprecateAt;
  if (!at || Number.isNaN(Date.parse(at)) || Date.parse(at) <= now.getTime()) return [];
  return [`WorkspaceImage "${imageName}" is withdrawn at ${at} (spec.deprecateAt): new workspaces cannot use it after that`];
}

export async function reviewUserSpaceUpdate(request: AdmissionRequest, isAdmin: AdminCheck, memo: DecisionMemo = DIRECT): Promise<AdmissionResponse> {
  if (request.operation !== 'UPDATE') return allow(request.uid);
  const wrong = wrongKind(request, KINDS.userSpace);
  if (wrong) return wrong;
  const object = request.object as UserSpace | null | undefined;
  const oldObject = request.oldObject as UserSpace | null | undefined;
  if (!object || !oldObject) return missingObject(request);
  const changes = userSpaceChanges(object, oldObject, (key) => memo.checkKey(key));
  const admin = needsAdminCheck(changes) ? await isAdmin(request.userInfo) : false;
  const violations = decideUserSpaceUpdate(changes, { username: request.userInfo.username, isAdmin: admin }, oldObject, object);
  const denial = denialStatus(violations);
  return denial ? deny(request.uid, denial) : allow(request.uid);
}

/** ImageRegistry CREATE and UPDATE: the rules of SPEC 2.3 and 8 the CRD schema cannot say (RE2 patterns) and those it does. */
export function reviewImageRegistry(request: AdmissionRequest): AdmissionResponse {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allow(request.uid);
  const wrong = wrongKind(request, KINDS.imageRegistry);
  if (wrong) return wrong;
  const object = request.object;
  if (!object) return missingObject(request);
  const violations = imageRegistryViolations(object.spec).map((v) => ({ rule: 'registry-spec' as const, ...v }));
  const denial = denialStatus(violations);
  return denial ? deny(request.uid, denial) : allow(request.uid);
}

/** WorkspaceImage CREATE and UPDATE: the declared apps (`spec.apps`), which the CRD schema also bounds where the API server checks it. */
export function reviewWorkspaceImage(request: AdmissionRequest): AdmissionResponse {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') return allow(request.uid);
  const wrong = wrongKind(request, KINDS.workspaceImage);
  if (wrong) return wrong;
  const object = request.object as WorkspaceImage | null | undefined;
  if (!object) return missingObject(request);
  const violations = declaredAppViolations((object.spec as Record<string, unknown> | undefined)?.apps).map((v) => ({ rule: 'image-apps' as const, ...v }));
  const denial = denialStatus(violations);
  return denial ? deny(request.uid, denial) : allow(request.uid);
}
