// POST /w/{name}/schedule: the workspace page's schedule form, REST's PATCH of spec.schedule
// (server/api/schemas.ts scheduleRequest, mapping.ts schedulePatch) with the person's token:
// every field is sent, so an emptied one is removed. A refusal (the form's words, the webhook's
// limit) is shown beside the field it is about, with what was typed.
import { ValidationError } from 'yup';
import { KubeApiError } from '../../kube/errors.js';
import { RESOURCES } from '../../kube/resources.js';
import { scheduleSummary } from '../../contract/schedule.js';
import type { Workspace } from '../../contract/workspace.js';
import type { ScheduleField, ScheduleRefusal } from '../../web/templates/workspace-facts.js';
import { schedulePatch } from '../api/mapping.js';
import { scheduleRequest } from '../api/schemas.js';
import { scheduleFieldOf } from './new.js';
import { leaveNotice } from './notice.js';
import { refusalOf } from './refusal.js';
import type { PageContext, PageDeps, PageRouter } from './types.js';
import { namespaceOf, pagePath, targetNamespace, workspacePageOf } from './workspaces.js';

const FIELDS: readonly ScheduleField[] = ['autostart', 'autostop', 'max_running', 'time_zone'];

function refusalOfError(err: unknown, values: Record<ScheduleField, string>): ScheduleRefusal | undefined {
  if (err instanceof ValidationError) return { field: scheduleFieldOf(err.path ?? ''), message: err.message, values };
  if (err instanceof KubeApiError && err.status < 500) {
    const { field, said, cluster } = refusalOf(err);
    return { ...(field?.startsWith('spec.schedule') ? { field: scheduleFieldOf(field) } : {}), message: said, ...(cluster ? { cluster } : {}), values };
  }
  return undefined;
}

async function changeSchedule(ctx: PageContext, deps: PageDeps): Promise<void> {
  const name = ctx.params.name!;
  const form = ctx.request.form ?? {};
  const values = Object.fromEntries(FIELDS.map((f) => [f, (form[f] ?? '').trim()])) as Record<ScheduleField, string>;
  // A zone the page filled in from the browser is no schedule by itself.
  const times = values.autostart || values.autostop || values.max_running;
  let saved: Workspace;
  try {
    const req = scheduleRequest.validateSync({ ...values, ...(times ? {} : { time_zone: '' }) }, { strict: true });
    saved = await ctx.state.kube.patch<Workspace>(RESOURCES.workspace, name, schedulePatch(req), { namespace: targetNamespace(ctx) });
  } catch (err) {
    const scheduleRefusal = refusalOfError(err, values);
    if (!scheduleRefusal) throw err;
    return workspacePageOf(ctx, deps, { scheduleRefusal }, 400);
  }
  leaveNotice(ctx, `/w/${name}`, `Schedule saved: ${scheduleSummary(saved.spec?.schedule)}.`, deps.secureCookies);
  ctx.redirect(pagePath(name, namespaceOf(ctx)));
}

export function mountSchedulePage(router: PageRouter, deps: PageDeps): void {
  router.post('/w/:name/schedule', (ctx) => changeSchedule(ctx, deps));
}
