// What every administration page shares: an HTML form read as the REST request its schema
// checks, a form handler that redirects on success and shows a refusal above the form, the
// words of a finished action, and small readers of the objects the tables show.
import type { AnySchema } from 'yup';
import type { KubeObject } from '../../kube/client.js';
import type { AdminOutcome } from '../../web/templates/admin-frame.js';
import { refusalOf } from './refusal.js';
import type { PageContext, PageDeps } from './types.js';

export type FieldKind = 'string' | 'integer' | 'boolean' | 'list';

/**
 * An HTML form as the REST request its schema checks: integers and booleans typed, lists split
 * on commas. A create drops empty fields (absent, as in JSON); an edit sends them, which clears
 * what can be cleared.
 */
export function formRequest(form: Record<string, string>, kinds: Record<string, FieldKind>, keepEmpty: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, kind] of Object.entries(kinds)) {
    const raw = form[field];
    if (raw === undefined) continue;
    const text = raw.trim();
    if (kind === 'boolean') out[field] = text === '1';
    else if (kind === 'list') {
      if (text || keepEmpty) out[field] = text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
    } else if (!text) {
      if (keepEmpty && kind === 'string') out[field] = '';
    } else if (kind === 'integer') out[field] = /^-?\d{1,12}$/.test(text) ? Number(text) : text;
    else out[field] = text;
  }
  return out;
}

export function checked<S extends AnySchema>(schema: S, request: Record<string, unknown>): S['__outputType'] {
  return schema.validateSync(request, { strict: true, abortEarly: false }) as S['__outputType'];
}

/** What a refused form shows again: everything typed but a password, which never goes back into a page. */
export function typedBack(form: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(form).filter(([field]) => !/password/i.test(field)));
}

export type Render = (ctx: PageContext, deps: PageDeps, outcome: AdminOutcome, status?: number) => Promise<void>;

/**
 * A form handler: `act` does the write; success redirects to `back` with what was done, a
 * refusal (4xx: the schema's or the cluster's words) renders the page again above `form`.
 */
export function action(render: Render, back: string, done: keyof typeof DONE, form: (ctx: PageContext) => string, act: (ctx: PageContext, deps: PageDeps) => Promise<unknown>) {
  return async (ctx: PageContext, deps: PageDeps): Promise<void> => {
    try {
      await act(ctx, deps);
      ctx.redirect(`${back}?done=${encodeURIComponent(done)}`);
    } catch (err) {
      const { status, said, cluster } = refusalOf(err);
      await render(ctx, deps, { error: { form: form(ctx), message: said, cluster }, values: typedBack(ctx.request.form ?? {}) }, status);
    }
  };
}

/** What a finished action says; the redirect names it by key, so a link cannot put words on the page. */
export const DONE: Record<string, string> = {
  'person-created': 'The person was created.',
  'local-user-created': 'The local user was created.',
  'local-user-deleted': 'The local user was deleted.',
  'membership-saved': 'The membership was saved.',
  'quota-saved': 'The quota was saved.',
  'schedules-saved': 'The schedules were saved.',
  'image-created': 'The entry was created.',
  'image-saved': 'The entry was saved.',
  'image-updated': 'The entry was updated.',
  'registry-created': 'The registry was created.',
  'registry-saved': 'The registry was saved.',
  'sync-requested': 'A sync was requested; it runs in the background.',
  'workspace-started': 'The workspace was asked to start.',
  'workspace-stopped': 'The workspace was asked to stop; its home volume is kept.',
  'workspace-deleted': 'The workspace was deleted; its home volume was kept.',
  'workspace-deleted-with-volume': 'The workspace was deleted with its home volume and everything in its home folder.',
};

export function doneOf(ctx: PageContext): AdminOutcome {
  const key = String(ctx.query.done ?? '');
  return Object.hasOwn(DONE, key) ? { done: DONE[key] } : {};
}

export const labelsOf = (o: KubeObject) => o.metadata?.labels ?? {};
export const nameOf = (o: KubeObject) => o.metadata?.name ?? '';
export const specOf = (o: KubeObject) => (o.spec ?? {}) as Record<string, any>;
export const statusOf = (o: KubeObject) => (o.status ?? {}) as Record<string, any>;

export function readiness(o: KubeObject): { ready: string; message: string } {
  const conditions = (statusOf(o).conditions ?? []) as { type?: string; status?: string; message?: string }[];
  const ready = conditions.find((c) => c.type === 'Ready');
  const degraded = conditions.find((c) => c.type === 'Degraded' && c.status === 'True');
  return { ready: ready?.status === 'True' ? 'Ready' : ready ? 'Not ready' : 'Not synced yet', message: degraded?.message ?? (ready?.status === 'True' ? '' : ready?.message ?? '') };
}

/** A page handler given the server's dependencies, as the router calls it. */
export type On = (handler: (ctx: PageContext, deps: PageDeps) => Promise<void>) => (ctx: PageContext) => Promise<void>;

/** The `:name` of an admin route. */
export const nameParam = (ctx: PageContext) => ctx.params.name!;
