// Why a Failed workspace cannot start, for the pages: the controller's reason classified by the
// same kubelet reason lists the controller words its condition from (kube/pod-reasons.ts).
import { stuckKindOf } from '../../kube/pod-reasons.js';
import { phaseOf, type Failure, type WorkspaceView } from '../../web/templates/format.js';

export function failureOf(ws: WorkspaceView, entryTitle: string | undefined): Failure | undefined {
  if (phaseOf(ws) !== 'Failed') return undefined;
  const conditions = ws.status?.conditions ?? [];
  const why = conditions.find((c) => c.type === 'Degraded' && c.status === 'True') ?? conditions.find((c) => c.type === 'Ready' && c.status !== 'True');
  return {
    kind: stuckKindOf(why?.reason ?? '') ?? 'other',
    detail: why?.message ?? '',
    entry: { name: ws.spec?.imageRef?.name ?? '', title: entryTitle },
  };
}
