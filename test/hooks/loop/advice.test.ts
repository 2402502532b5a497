import { expect } from 'chai';
import { reconcileAdvice } from '../../../hooks/loop/advice.js';
import { Controller } from '../../../hooks/loop/controller.js';
import type { KubeObject } from '../../../kube/client.js';
import { RESOURCES } from '../../../kube/resources.js';
import { FakeApiServer } from '../../support/fake-apiserver.js';
import { eventually } from '../support/eventually.js';

describe('advice for a reconcile that keeps failing', () => {
  it('tells an operator that a Workspace outlived its namespace, and how to end it either way', () => {
    const advice = reconcileAdvice(RESOURCES.workspace, 'svc-alice/demo', 'StatefulSet/demo: namespaces "svc-alice" not found');
    expect(advice).to.include('namespace svc-alice is gone but Workspace demo is still stored in it');
    expect(advice).to.include('kubectl delete workspaces --all -n svc-alice');
    expect(advice).to.include('recreate it');
  });

  it('says nothing when another namespace is missing, the parent is cluster-wide, or the failure is something else', () => {
    expect(reconcileAdvice(RESOURCES.workspace, 'svc-alice/demo', 'Secret/x: namespaces "svc-system" not found')).to.equal(undefined);
    expect(reconcileAdvice(RESOURCES.userSpace, 'alice', 'ResourceQuota/svc-quota: namespaces "svc-alice" not found')).to.equal(undefined);
    expect(reconcileAdvice(RESOURCES.workspace, 'svc-alice/demo', 'StatefulSet/demo: the server is currently unable to handle the request')).to.equal(undefined);
  });
});

describe('a parent whose namespace is gone', () => {
  it('is retried with its status saying Failed and the log saying what an operator can do', async () => {
    const api = new FakeApiServer();
    await api.start();
    const stop = new AbortController();
    const logs: { message: string; fields: Record<string, unknown> }[] = [];
    try {
      // As kube-apiserver leaves it after a namespace deleted around a restart: the Workspace stored, its namespace not.
      api.seed({ apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name: 'orphan', namespace: 'svc-gone' }, spec: {} });
      const controller = new Controller(api.client(), {
        name: 'test',
        parent: RESOURCES.workspace,
        children: [RESOURCES.configMap],
        parentLabel: 'den.dev/workspace',
        hook: ({ errors }) => ({ status: { phase: errors?.length ? 'Failed' : 'Ready' }, children: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'orphan-cfg' }, data: { v: '1' } }] }),
        config: {},
        relatedSources: [],
        related: () => ({}),
      }, { backoff: { baseMs: 20, maxMs: 200, jitter: 0 }, shutdownGraceMs: 1000, log: (message, fields) => logs.push({ message, fields: fields ?? {} }) });
      const running = controller.run(stop.signal);
      await controller.whenSynced();
      const retries = await eventually(() => {
        const lines = logs.filter((l) => l.message === 'reconcile failed; retrying' && l.fields.key === 'svc-gone/orphan');
        return lines.length >= 2 && lines;
      }, 'two retries of the orphaned Workspace');
      expect(retries[0]!.fields.error).to.include('namespaces "svc-gone" not found');
      expect(retries[0]!.fields.advice).to.include('kubectl delete workspaces --all -n svc-gone');
      const stored = await eventually(() => api.object<KubeObject & { status?: { phase?: string } }>(RESOURCES.workspace, 'orphan', 'svc-gone')?.status?.phase === 'Failed', 'status Failed');
      expect(stored).to.equal(true);
      stop.abort();
      await running;
    } finally {
      stop.abort();
      await api.close();
    }
  });
});
