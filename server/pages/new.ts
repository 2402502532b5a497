// GET/POST /new: REST's create (server/api/workspaces.ts createWorkspaceOf) behind a form.
// The request is checked by REST's schema; refusals (the schema's, the webhook's, the
// cluster's) are placed beside the field they are about, and everything typed is kept.
import { ValidationError } from 'yup';
import type { KubeClient } from '../../kube/client.js';
import { KubeApiError } from '../../kube/errors.js';
import { formatQuantity } from '../../kube/quantity.js';
import { podRequestOf, quotaUse, type HomeClaim, type PodRequests } from '../../contract/quota-use.js';
import type { Workspace } from '../../contract/workspace.js';
import { RESOURCES } from '../../kube/resources.js';
import { newPage, type NewField, type NewValues, type NewView, type QuotaLine } from '../../web/templates/new.js';
import { listUsableImages } from '../api/catalog.js';
import { createWorkspaceRequest } from '../api/schemas.js';
import { sourceViolations } from '../../contract/workspace-source.js';
import { requestFieldOf } from '../api/mapping.js';
import { createWorkspaceOf } from '../api/workspaces.js';
import type { Caller } from '../http/context.js';
import { describeError } from '../../koa/errors.js';
import { catalogEntry } from './catalog.js';
import { viewerOf } from './middleware.js';
import { leaveNotice } from './notice.js';
import { refusalOf } from './refusal.js';
import { sendPage } from './send.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';

interface UserSpaceView {
  spec?: { quota?: Record<string, unknown>; sshAuthorizedKeys?: string[] };
}

/**
 * Where and how the form shows a cluster or webhook refusal: in the person's words
 * (./refusal.ts: the refusing rule's, or what the cluster's answer means), beside the form
 * field the refused Workspace field came from (an existing name is the name's), else above the
 * form; the cluster's own text is kept to fold.
 */
export function refusalBeside(err: KubeApiError, gpuResource: string): { field?: NewField; said: string; cluster?: string } {
  const { field: objectField, said, cluster } = refusalOf(err);
  const field = objectField === undefined ? undefined : formFieldOf(requestFieldOf(objectField, gpuResource), objectField);
  return { ...(field && { field }), said, ...(cluster && { cluster }) };
}

/** The form field of a request field: source's ref and path have their own inputs, the rest of source is the repository's; each part of the schedule its own. */
function formFieldOf(requestField: string | undefined, path: string): NewField | undefined {
  if (requestField === 'schedule') return scheduleFieldOf(path);
  if (requestField !== 'source') return requestField as NewField | undefined;
  if (/(^|\.)git\.ref$/.test(path)) return 'repo_ref';
  if (/(^|\.)git\.path$/.test(path)) return 'repo_path';
  if (/(^|\.)source\.devcontainer$/.test(path)) return 'repo_devcontainer';
  return 'repo';
}

/** The schedule's form field of a Workspace field (spec.schedule.timeZone) or a request field (schedule.time_zone). */
export function scheduleFieldOf(path: string): 'autostart' | 'autostop' | 'max_running' | 'time_zone' {
  if (/(timeZone|time_zone)$/.test(path)) return 'time_zone';
  if (/(maxRunning|max_running)$/.test(path)) return 'max_running';
  return /autostop/.test(path) ? 'autostop' : 'autostart';
}

export function fieldOfRefusal(err: KubeApiError, gpuResource: string): NewField | undefined {
  return refusalBeside(err, gpuResource).field;
}

function valuesOf(form: Record<string, string>): NewValues {
  const v = (k: string) => (form[k] ?? '').trim();
  return { name: v('name'), image: v('image'), cpu: v('cpu'), memory: v('memory'), gpu: v('gpu'), storage: v('storage'), ssh_public_key: v('ssh_public_key'), repo: v('repo'), repo_ref: v('repo_ref'), repo_path: v('repo_path'), repo_devcontainer: v('repo_devcontainer'), autostart: v('autostart'), autostop: v('autostop'), max_running: v('max_running'), time_zone: v('time_zone'), save_key: form.save_key === '1' };
}

/**
 * What the person's workspaces hold against their quota as the cluster counts it
 * (contract/quota-use.ts): their pods' requests, their home claims' sizes.
 */
export function quotaLines(userSpace: UserSpaceView, workspaces: Workspace[], gpuResource: string, pods: PodRequests[] = [], claims: HomeClaim[] = []): QuotaLine[] {
  const quota = userSpace.spec?.quota ?? {};
  const use = quotaUse(workspaces, claims, gpuResource, podRequestOf(pods));
  return [
    { what: 'workspaces', used: String(workspaces.length), limit: String(quota.workspaces ?? '–') },
    { what: 'CPU', used: formatQuantity(use.cpu), limit: String(quota.cpu ?? '–') },
    { what: 'memory', used: formatQuantity(use.memory), limit: String(quota.memory ?? '–') },
    { what: 'storage', used: formatQuantity(use.storage), limit: String(quota.storage ?? '–') },
    { what: 'GPUs', used: formatQuantity(use.gpu), limit: String(quota.gpu ?? 0) },
  ];
}

async function context(kube: KubeClient, caller: Caller, deps: PageDeps, now: number) {
  const [images, userSpace, workspaces, pods, claims] = await Promise.all([
    listUsableImages(kube, deps.resources),
    kube.get<UserSpaceView>(RESOURCES.userSpace, caller.userspace),
    kube.list<Workspace>(RESOURCES.workspace, { namespace: caller.namespace }),
    kube.list<PodRequests>(RESOURCES.pod, { namespace: caller.namespace }),
    kube.list<HomeClaim>(RESOURCES.persistentVolumeClaim, { namespace: caller.namespace }),
  ]);
  const offered = images
    .map((o) => catalogEntry(o, now))
    .filter((e) => !e.deprecated)
    .sort((a, b) => a.displayName.localeCompare(b.displayName))
    .map((e) => ({ name: e.name, displayName: e.displayName }));
  return { images: offered, userSpace, quota: quotaLines(userSpace, workspaces.items, deps.resources.gpuResource, pods.items, claims.items) };
}

async function showForm(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { kube, caller, assets } = ctx.state;
  const { images, userSpace, quota } = await context(kube, caller, deps, deps.now());
  const keys = userSpace.spec?.sshAuthorizedKeys ?? [];
  const image = typeof ctx.query.image === 'string' ? ctx.query.image : '';
  const values: NewValues = { name: '', image, cpu: '', memory: '', gpu: '', storage: '10Gi', ssh_public_key: keys[0] ?? '', repo: '', repo_ref: '', repo_path: '', repo_devcontainer: '', autostart: '', autostop: '', max_running: '', time_zone: '', save_key: false };
  sendPage(ctx, newPage(assets, viewerOf(ctx)!, { values, images, quota, errors: {}, hasSavedKeys: keys.length > 0 }));
}

async function submit(ctx: PageContext, deps: PageDeps): Promise<void> {
  const { kube, caller, assets } = ctx.state;
  const values = valuesOf(ctx.request.form ?? {});
  const errors: NewView['errors'] = {};
  const clusterSaid: NewView['clusterSaid'] = {};
  let formError: string | undefined;
  let formCluster: string | undefined;
  const request: Record<string, unknown> = Object.fromEntries(Object.entries({ name: values.name, image: values.image, cpu: values.cpu, memory: values.memory, gpu: values.gpu, storage: values.storage, ssh_public_key: values.ssh_public_key }).filter(([, v]) => v !== ''));
  if (values.repo || values.repo_ref || values.repo_path || values.repo_devcontainer) {
    request.source = {
      git: Object.fromEntries(Object.entries({ url: values.repo, ref: values.repo_ref, path: values.repo_path }).filter(([, v]) => v !== '')),
      ...(values.repo_devcontainer ? { devcontainer: values.repo_devcontainer } : {}),
    };
  }
  const schedule = Object.fromEntries(Object.entries({ autostart: values.autostart, autostop: values.autostop, max_running: values.max_running }).filter(([, v]) => v !== ''));
  // A zone alone (the page may fill in the browser's) is no schedule.
  if (Object.keys(schedule).length > 0) request.schedule = { ...schedule, ...(values.time_zone ? { time_zone: values.time_zone } : {}) };
  try {
    const req = createWorkspaceRequest.validateSync(request, { strict: true, abortEarly: false });
    await createWorkspaceOf(caller, kube, req, deps.resources);
  } catch (err) {
    if (err instanceof ValidationError) {
      for (const e of err.inner.length > 0 ? err.inner : [err]) {
        const path = e.path ?? '';
        // The repository's rules say each refusal in words beside its own field, as the webhook would.
        if (path.startsWith('source')) for (const v of sourceViolations(request.source)) errors[formFieldOf('source', v.field)!] ??= v.advice;
        else if (path.startsWith('schedule')) errors[scheduleFieldOf(path)] ??= e.message;
        else errors[path as NewField] ??= e.message;
      }
    } else if (err instanceof KubeApiError && err.status < 500) {
      const { field, said, cluster } = refusalBeside(err, deps.resources.gpuResource);
      if (field) {
        errors[field] = said;
        if (cluster) clusterSaid[field] = cluster;
      } else {
        formError = said;
        formCluster = cluster;
      }
    } else {
      throw err;
    }
    return showRefusal(ctx, deps, values, errors, { formError, formCluster, clusterSaid });
  }
  const path = `/w/${encodeURIComponent(values.name)}`;
  // The workspace exists now: a key that could not be saved is news on its page, not a refused create.
  if (values.save_key) {
    await saveKey(kube, caller, values.ssh_public_key).catch((err: unknown) => {
      const { status, message } = describeError(err);
      if (status >= 500) deps.log('saving an SSH key to a UserSpace failed', { userspace: caller.userspace, status, error: String((err as Error)?.message ?? err) });
      leaveNotice(ctx, path, `The workspace was created, but your SSH key was not saved to your profile: ${message}`, deps.secureCookies);
    });
  }
  ctx.redirect(path);
}

async function showRefusal(ctx: PageContext, deps: PageDeps, values: NewValues, errors: NewView['errors'], said: Pick<NewView, 'formError' | 'formCluster' | 'clusterSaid'>): Promise<void> {
  const { kube, caller, assets } = ctx.state;
  let { formError } = said;
  const { images, userSpace, quota } = await context(kube, caller, deps, deps.now()).catch((err: unknown) => {
    // The form is still worth showing with the refusal when the extras cannot be read.
    formError ??= describeError(err).message;
    return { images: [], userSpace: {} as UserSpaceView, quota: [] };
  });
  ctx.status = 400;
  sendPage(ctx, newPage(assets, viewerOf(ctx)!, { values, images, quota, errors, clusterSaid: said.clusterSaid, formError, formCluster: said.formCluster, hasSavedKeys: (userSpace.spec?.sshAuthorizedKeys ?? []).length > 0 }), 400);
}

/** Adds the key to my UserSpace (SPEC 1.2 rule 6 lets an owner patch only this field). */
async function saveKey(kube: KubeClient, caller: Caller, key: string): Promise<void> {
  const us = await kube.get<UserSpaceView>(RESOURCES.userSpace, caller.userspace);
  const keys = us.spec?.sshAuthorizedKeys ?? [];
  if (keys.includes(key)) return;
  await kube.patch(RESOURCES.userSpace, caller.userspace, { spec: { sshAuthorizedKeys: [...keys, key] } });
}

export function mountNewPage(router: PageRouter, deps: PageDeps): void {
  router.get('/new', (ctx) => showForm(ctx, deps));
  router.post('/new', (ctx) => submit(ctx, deps));
}
