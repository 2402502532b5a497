// AdmissionReviews built from the recorded one (fixtures/kube/admissionreview-request-create.json):
// the envelope as the API server sends it, with the reviewed kind and objects replaced.
import type { KubeObject } from '../../../kube/client.js';
import { objectKey } from '../../../kube/informer.js';
import type { PersistentVolumeClaim, UserSpace, Workspace, WorkspaceImage } from '../../../hooks/admission/objects.js';
import type { AdmissionRequest, AdmissionReview } from '../../../hooks/admission/review.js';
import type { ClusterView } from '../../../hooks/admission/webhooks.js';
import { admissionReviewFixture } from '../../support/fixtures.js';

export interface ReviewOf {
  kind: 'Workspace' | 'UserSpace';
  operation?: 'CREATE' | 'UPDATE' | 'DELETE';
  object: KubeObject | null;
  oldObject?: KubeObject | null;
  namespace?: string;
  userInfo?: AdmissionRequest['userInfo'];
}

const PLURAL = { Workspace: 'workspaces', UserSpace: 'userspaces' } as const;

export function reviewOf(r: ReviewOf): AdmissionReview & { request: AdmissionRequest } {
  const review = admissionReviewFixture();
  const req = review.request;
  const gvk = { group: 'den.dev', version: 'v1alpha1', kind: r.kind };
  const gvr = { group: 'den.dev', version: 'v1alpha1', resource: PLURAL[r.kind] };
  req.kind = gvk;
  req.requestKind = gvk;
  req.resource = gvr;
  req.requestResource = gvr;
  req.operation = r.operation ?? 'CREATE';
  req.object = r.object;
  req.oldObject = r.oldObject ?? null;
  req.name = r.object?.metadata?.name ?? r.oldObject?.metadata?.name;
  if (r.kind === 'UserSpace') delete req.namespace;
  else req.namespace = r.namespace ?? r.object?.metadata?.namespace ?? 'svc-alice';
  if (req.operation === 'UPDATE') req.options = { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1' };
  if (r.userInfo) req.userInfo = r.userInfo;
  return review;
}

export interface ViewContent {
  images?: WorkspaceImage[];
  userSpaces?: UserSpace[];
  workspaces?: Workspace[];
  claims?: PersistentVolumeClaim[];
}

/** A ClusterView over fixed lists, standing in for the informer caches. */
export function viewOf(content: ViewContent): ClusterView {
  const byName = <T extends KubeObject>(items: T[] = []) => new Map(items.map((o) => [objectKey(o), o]));
  const images = byName(content.images);
  const userSpaces = byName(content.userSpaces);
  const inNamespace = <T extends KubeObject>(items: T[] = [], ns: string) => items.filter((o) => o.metadata?.namespace === ns);
  return {
    workspaceImage: (name) => images.get(name),
    userSpace: (name) => userSpaces.get(name),
    workspaces: (ns) => inNamespace(content.workspaces, ns),
    claims: (ns) => inNamespace(content.claims, ns),
  };
}

/** The JSONPatch of a mutating answer, decoded. */
export function decodedPatch(response: { patch?: string; patchType?: string }): unknown[] {
  if (!response.patch) return [];
  return JSON.parse(Buffer.from(response.patch, 'base64').toString('utf8')) as unknown[];
}
