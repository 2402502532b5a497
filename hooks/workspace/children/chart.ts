// Renders the children of one Workspace in an in-memory cdk8s chart. Nothing is written to
// disk: the App is never synthesized, only the chart's JSON is read.
import { type App, Chart } from 'cdk8s';
import { inMemoryApp } from '../../loop/in-memory-app.js';
import type { WorkspaceChildrenProps } from './props.js';
import { WorkspaceService } from './service.js';
import { WorkspaceStatefulSet } from './stateful-set.js';

export class WorkspaceChildren extends Chart {
  constructor(scope: App, id: string, props: WorkspaceChildrenProps) {
    super(scope, id);
    // Construction order is output order: SPEC 1.3 applies the governing Service first.
    new WorkspaceService(this, 'Service', props);
    new WorkspaceStatefulSet(this, 'StatefulSet', props);
  }
}

/** The Service and the StatefulSet as plain JSON objects, in that order. */
export function renderWorkspaceChildren(props: WorkspaceChildrenProps): Record<string, unknown>[] {
  return new WorkspaceChildren(inMemoryApp(), 'workspace', props).toJson() as Record<string, unknown>[];
}
