// `PUT /workspaces/{name}/ports/{port}/share`: who may open a port of a workspace through the
// host-based preview (contract/port-share.ts, docs/preview.md "Sharing a port"). The share is
// written onto the Workspace's `spec.sharedPorts` with the caller's own token, so the cluster
// decides who may share (whoever may update the Workspace: its owner); every change is an Event
// of the workspace and an audit line (`port-share-changed`, docs/logs.md).
// The page (server/pages/port-share.ts) and `den port share` go through the same function.
import { DEN_EVENT_REASONS, workspaceRefOf } from '../../kube/den-events.js';
import { RESOURCES } from '../../kube/resources.js';
import { userSpaceOfNamespace } from '../../kube/group.js';
import { HttpError } from '../../koa/errors.js';
import { peopleOf, portShareOf, portShareInWords, portShareProblem, withPortShare, type PortShareLevel, type PortShareRequest } from '../../contract/port-share.js';
import type { Workspace } from '../../contract/workspace.js';
import { validateQuery } from '../http/validate.js';
import { namespaceQuery } from './schemas.js';
import { actorName, recordLifecycleEvent, type Actor } from './lifecycle-events.js';
import type { ApiContext, ApiRouter, ResourceDeps } from './types.js';
import { actorOf, targetNamespace } from './workspaces.js';
import { audit, AUDIT_ACTS } from '../../process/audit.js';
import { rewriteObject } from './rewrite-object.js';

/** One port's share as REST answers it. */
export interface PortShareAnswer {
  workspace: string;
  port: number;
  level: PortShareLevel;
  people: string[];
  /** The host-based address the share opens, or null when the names do not fit a host. */
  app_url: string | null;
}

type ShareDeps = Pick<ResourceDeps, 'appUrl' | 'allowPublicPorts' | 'events' | 'log'>;

/** The request as sent (JSON or a form), checked by the one set of rules; 400 naming the field. */
export function portShareRequestOf(raw: { port: unknown; level: unknown; people: unknown }, deps: ShareDeps): PortShareRequest {
  const port = typeof raw.port === 'string' && /^\d{1,5}$/.test(raw.port) ? Number(raw.port) : raw.port;
  const people = typeof raw.people === 'string' ? peopleOf(raw.people) : raw.people ?? [];
  const req = { port, level: raw.level ?? '', people };
  const problem = portShareProblem(req, { hostBased: Boolean(deps.appUrl), allowPublicPorts: deps.allowPublicPorts ?? false });
  if (problem) throw new HttpError(400, `${problem.field}: ${problem.message}`);
  return req as PortShareRequest;
}

function answerOf(ws: Workspace, port: number, deps: ShareDeps): PortShareAnswer {
  const name = ws.metadata?.name ?? '';
  const share = portShareOf(ws.spec?.sharedPorts, port);
  const person = userSpaceOfNamespace(ws.metadata?.namespace ?? '');
  return { workspace: name, port, level: share.level, people: 'people' in share ? (share.people ?? []) : [], app_url: (person && deps.appUrl?.({ port, workspace: name, person })) || null };
}

/**
 * Writes one port's share onto the workspace `name` in `namespace` with `actor`'s token
 * (read, changed, written back with its resourceVersion; retried when another write came
 * between), records an Event, and answers the port's share as stored.
 */
export async function setPortShare(actor: Actor, namespace: string, name: string, req: PortShareRequest, deps: ShareDeps, via: 'web' | 'rest'): Promise<PortShareAnswer> {
  const written = await rewriteObject<Workspace>(actor.kube, RESOURCES.workspace, name, namespace, (ws) => ({ spec: { sharedPorts: withPortShare(ws.spec?.sharedPorts, req) } }));
  const message = req.level === 'owner' ? `Port ${req.port} is no longer shared (only its owner opens it), by ${actorName(actor.caller, namespace)}.` : `Port ${req.port} shared with ${portShareInWords(req)} by ${actorName(actor.caller, namespace)}.`;
  await recordLifecycleEvent(deps, actor, workspaceRefOf(written), DEN_EVENT_REASONS.portShareChanged, message);
  const { caller } = actor;
  audit(deps.log, AUDIT_ACTS.portShareChanged, { person: caller.email, userspace: caller.userspace, namespace, workspace: name, port: req.port, level: req.level, ...(req.level === 'people' ? { people: [...req.people].sort() } : {}), via, ...(actor.clientAddress ? { client: actor.clientAddress } : {}) });
  return answerOf(written, req.port, deps);
}

function sharePort(deps: ShareDeps) {
  return async (ctx: ApiContext): Promise<void> => {
    const { namespace } = validateQuery(ctx, namespaceQuery);
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    if (typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'the body must be a JSON object: {"level": "authenticated"}');
    const unknown = Object.keys(body).find((k) => k !== 'level' && k !== 'people');
    if (unknown !== undefined) throw new HttpError(400, `${unknown.slice(0, 40)}: unknown field; send level and, for level people, people`);
    const req = portShareRequestOf({ port: ctx.params.port, level: body.level, people: body.people }, deps);
    ctx.body = await setPortShare(actorOf(ctx), targetNamespace(ctx, namespace), ctx.params.name!, req, deps, 'rest');
  };
}

export function mountPortShareRoutes(router: ApiRouter, deps: ShareDeps): void {
  router.put('/workspaces/:name/ports/:port/share', sharePort(deps));
}
