// Sharing a workspace with another person (docs/sharing.md): the owner's REST calls write and
// delete the share's Role and RoleBinding (contract/share.ts) in their own namespace with their
// own token, so Kubernetes' escalation check decides what they may grant. A guest's list starts
// from the share RoleBindings labelled with their name (read with the server's own client: the
// only thing here no person may do), then reads each workspace with the guest's own token.
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { isAlreadyExists, isNotFound, KubeApiError } from '../../kube/errors.js';
import { userNamespace } from '../../kube/group.js';
import { isDns1123Label } from '../../kube/names.js';
import { RESOURCES } from '../../kube/resources.js';
import { DEN_EVENT_REASONS, workspaceRefOf } from '../../kube/den-events.js';
import { HttpError } from '../../koa/errors.js';
import { audit, AUDIT_ACTS } from '../../process/audit.js';
import { SHARE_LABELS, shareObjectName, shareObjects, shareOfBinding, sharedSshUser, type ShareView } from '../../contract/share.js';
import type { Workspace } from '../../contract/workspace.js';
import { noQuery, validateQuery } from '../http/validate.js';
import { recordLifecycleEvent, type Actor } from './lifecycle-events.js';
import type { ApiContext, ApiRouter, ResourceDeps } from './types.js';
import { actorOf } from './workspaces.js';

type ShareDeps = Pick<ResourceDeps, 'events' | 'log' | 'serverClient' | 'sharesNaming'>;

/** A workspace someone shared with the caller, as `GET /shared-workspaces` lists it. */
export interface SharedWorkspace {
  owner: string;
  namespace: string;
  name: string;
  /** The SSH username that reaches it through den gateway: `<workspace>.<owner>`. */
  ssh_user: string;
  workspace: Workspace;
}

/** 400 unless `person` can name a person (a UserSpace name is a DNS label). */
function checkPerson(person: string): void {
  if (!isDns1123Label(person)) throw new HttpError(400, `person "${person}" is not a person's name: use their Den user name (lower-case letters, digits and '-')`);
}

/** The shares of the caller's workspace `name`, guests by name. */
export async function listSharesOf(kube: KubeClient, namespace: string, name: string): Promise<ShareView[]> {
  const list = await kube.list(RESOURCES.roleBinding, { namespace, labelSelector: `${SHARE_LABELS.workspace}=${name}` });
  return list.items
    .map((b) => shareOfBinding(b as Parameters<typeof shareOfBinding>[0]))
    .filter((s): s is ShareView => s !== undefined && s.workspace === name)
    .sort((a, b) => a.person.localeCompare(b.person));
}

/**
 * Creates `object`, or, when one of that name exists, leaves it if it is the same and replaces it
 * if not; answers the object as the API server holds it and whether it was made now.
 */
async function ensure(kube: KubeClient, resource: typeof RESOURCES.role, object: Record<string, unknown>, same: (held: KubeObject) => boolean): Promise<{ stored: KubeObject; created: boolean }> {
  const { name, namespace } = object.metadata as { name: string; namespace: string };
  try {
    return { stored: await kube.create(resource, object as KubeObject, namespace), created: true };
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  const held = await kube.get<KubeObject>(resource, name, namespace);
  if (same(held)) return { stored: held, created: false };
  await kube.delete(resource, name, namespace);
  return { stored: await kube.create(resource, object as KubeObject, namespace), created: true };
}

/**
 * Shares the caller's workspace `name` with `person`; answers the share and whether it is new.
 * The Role first, then the RoleBinding naming it, both as the owner.
 */
export async function grantShare(actor: Actor, name: string, person: string, deps: ShareDeps, via: 'web' | 'rest'): Promise<{ share: ShareView; created: boolean }> {
  checkPerson(person);
  const { caller, kube } = actor;
  if (person === caller.userspace) throw new HttpError(400, `person "${person}" is you: a workspace's owner needs no share`);
  const workspace = await kube.get<Workspace>(RESOURCES.workspace, name, caller.namespace);
  if (deps.serverClient) {
    try {
      await deps.serverClient.get(RESOURCES.userSpace, person);
    } catch (err) {
      if (isNotFound(err)) throw new HttpError(404, `there is no person "${person}" in this Den: use their Den user name`);
      throw err;
    }
  }
  const uid = workspace.metadata?.uid;
  const { role, binding } = shareObjects(caller.userspace, name, person, uid);
  // Held objects of an earlier workspace of that name, or changed by hand, are made anew.
  const ownedHere = (held: KubeObject) => !uid || (held.metadata?.ownerReferences ?? []).some((r) => r.uid === uid);
  await ensure(kube, RESOURCES.role, role, (held) => ownedHere(held) && JSON.stringify((held as { rules?: unknown }).rules) === JSON.stringify(role.rules));
  const { stored, created } = await ensure(kube, RESOURCES.roleBinding, binding, (held) => {
    const roleRef = (held as { roleRef?: { kind?: string; name?: string } }).roleRef;
    return ownedHere(held) && roleRef?.kind === 'Role' && roleRef.name === shareObjectName(name, person) && shareOfBinding(held as Parameters<typeof shareOfBinding>[0])?.person === person;
  });
  if (created) {
    audit(deps.log, AUDIT_ACTS.shareGranted, { person: caller.email, userspace: caller.userspace, guest: person, namespace: caller.namespace, workspace: name, via, client: actor.clientAddress });
    await recordLifecycleEvent(deps, actor, workspaceRefOf(workspace), DEN_EVENT_REASONS.shared, `Shared with ${person} by ${caller.userspace}: SSH, terminal and apps, not stop, resize or delete.`, 'share');
  }
  return { share: shareOfBinding(stored as Parameters<typeof shareOfBinding>[0]) ?? { owner: caller.userspace, workspace: name, person, created: null }, created };
}

/** Ends the share of the caller's workspace `name` with `person`; 404 when there is none. */
export async function removeShare(actor: Actor, name: string, person: string, deps: ShareDeps, via: 'web' | 'rest'): Promise<void> {
  checkPerson(person);
  const { caller, kube } = actor;
  const objectName = shareObjectName(name, person);
  let removed = false;
  // The binding first: once it is gone the guest holds nothing, whatever happens to the Role.
  for (const resource of [RESOURCES.roleBinding, RESOURCES.role]) {
    try {
      await kube.delete(resource, objectName, caller.namespace);
      removed = true;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  if (!removed) throw new HttpError(404, `workspace ${name} is not shared with ${person}`);
  audit(deps.log, AUDIT_ACTS.shareRemoved, { person: caller.email, userspace: caller.userspace, guest: person, namespace: caller.namespace, workspace: name, via, client: actor.clientAddress });
  let ref = { name, namespace: caller.namespace } as ReturnType<typeof workspaceRefOf>;
  try {
    ref = workspaceRefOf(await kube.get<Workspace>(RESOURCES.workspace, name, caller.namespace));
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  await recordLifecycleEvent(deps, actor, ref, DEN_EVENT_REASONS.unshared, `Share with ${person} removed by ${caller.userspace}; their open sessions end within seconds.`, 'share');
}

/**
 * `owner`'s workspace `name` as shared with the holder of `kube` (the guest's own token), or
 * undefined when the cluster refuses them it or it does not exist: the label is only a pointer,
 * the cluster decides, and a stale or foreign binding grants nothing.
 */
export async function readSharedWorkspace(kube: KubeClient, owner: string, name: string): Promise<SharedWorkspace | undefined> {
  const namespace = userNamespace(owner);
  try {
    const workspace = await kube.get<Workspace>(RESOURCES.workspace, name, namespace);
    return { owner, namespace, name, ssh_user: sharedSshUser(name, owner), workspace };
  } catch (err) {
    if (err instanceof KubeApiError && (err.status === 403 || err.status === 404)) return undefined;
    throw err;
  }
}

/** The workspaces others shared with `guest`, each read with the guest's own token (`kube`). */
export async function listSharedWith(guest: string, kube: KubeClient, deps: ShareDeps): Promise<SharedWorkspace[]> {
  const bindings = deps.sharesNaming(guest);
  const seen = new Set<string>();
  const shares = bindings
    .map((b) => shareOfBinding(b as Parameters<typeof shareOfBinding>[0]))
    .filter((s): s is ShareView => s !== undefined && s.person === guest && s.owner !== guest)
    // Two bindings naming one workspace (one made by hand, say) list it once.
    .filter((s) => !seen.has(`${s.owner}/${s.workspace}`) && Boolean(seen.add(`${s.owner}/${s.workspace}`)));
  const found = await Promise.all(shares.map((share) => readSharedWorkspace(kube, share.owner, share.workspace)));
  return found.filter((s): s is SharedWorkspace => s !== undefined).sort((a, b) => a.owner.localeCompare(b.owner) || a.name.localeCompare(b.name));
}

function params(ctx: ApiContext): { name: string; person: string } {
  return { name: ctx.params.name!, person: ctx.params.person ?? '' };
}

export function mountShareRoutes(router: ApiRouter, deps: ResourceDeps): void {
  router.get('/workspaces/:name/shares', async (ctx) => {
    validateQuery(ctx, noQuery);
    // The workspace must be the caller's: a 404 from the cluster otherwise.
    await ctx.state.kube.get(RESOURCES.workspace, params(ctx).name, ctx.state.caller.namespace);
    ctx.body = { items: await listSharesOf(ctx.state.kube, ctx.state.caller.namespace, params(ctx).name) };
  });
  router.put('/workspaces/:name/shares/:person', async (ctx) => {
    validateQuery(ctx, noQuery);
    const { name, person } = params(ctx);
    const { share, created } = await grantShare(actorOf(ctx), name, person, deps, 'rest');
    ctx.status = created ? 201 : 200;
    ctx.body = share;
  });
  router.delete('/workspaces/:name/shares/:person', async (ctx) => {
    validateQuery(ctx, noQuery);
    const { name, person } = params(ctx);
    await removeShare(actorOf(ctx), name, person, deps, 'rest');
    ctx.status = 204;
  });
  router.get('/shared-workspaces', async (ctx) => {
    validateQuery(ctx, noQuery);
    ctx.body = { items: await listSharedWith(ctx.state.caller.userspace, ctx.state.kube, deps) };
  });
}
