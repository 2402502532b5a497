// Conformance cases. Reads: field and label selectors, pages, watches and the order of their events.
import { sleep, statusOf } from './harness.js';
import { MERGE, cm, names, pod, type Case } from './objects.js';

export const READS_CASES: Case[] = [
  {
    name: 'a list by field selector: metadata.name matches; an unsupported field: 400 naming it',
    run: async (s) => {
      await s.request('POST', s.core('configmaps'), cm('fs-a'));
      await s.request('POST', s.core('configmaps'), cm('fs-b'));
      const one = await s.request('GET', s.core('configmaps?fieldSelector=metadata.name%3Dfs-b'));
      const bad = await s.request('GET', s.core('configmaps?fieldSelector=data.key%3Dv'));
      return { one: names(one.body), bad: statusOf(bad) };
    },
  },
  {
    name: 'an unsupported field selector on Services, Secrets and a custom resource: 400 in each one\'s words',
    run: async (s) => [
      statusOf(await s.request('GET', s.core('services?fieldSelector=spec.type%3DClusterIP'))),
      statusOf(await s.request('GET', s.core('secrets?fieldSelector=data.x%3Dy'))),
      statusOf(await s.request('GET', `/apis/den.dev/v1alpha1/namespaces/${s.ns}/workspaces?fieldSelector=spec.running%3Dtrue`)),
    ],
  },
  {
    name: 'a list of pods by spec.nodeName and status.phase',
    run: async (s) => {
      await s.request('POST', s.core('pods'), pod('sel-bound', 'node-9'));
      await s.request('POST', s.core('pods'), pod('sel-free'));
      const onNode = await s.request('GET', s.core('pods?fieldSelector=spec.nodeName%3Dnode-9'));
      const notRunning = await s.request('GET', s.core('pods?fieldSelector=status.phase!%3DRunning'));
      await s.request('DELETE', s.core('pods/sel-bound'), { gracePeriodSeconds: 0 });
      return { onNode: names(onNode.body), notRunning: names(notRunning.body).filter((n: string) => n.startsWith('sel-')) };
    },
  },
  {
    name: 'a list by label selector: equality, inequality, set and existence',
    run: async (s) => {
      await s.request('POST', s.core('configmaps'), cm('ls-a', {}, { ls: 'y', tier: 'web', env: 'prod' }));
      await s.request('POST', s.core('configmaps'), cm('ls-b', {}, { ls: 'y', tier: 'db', env: 'prod' }));
      await s.request('POST', s.core('configmaps'), cm('ls-c', {}, { ls: 'y', tier: 'web' }));
      const q = (sel: string) => s.request('GET', s.core(`configmaps?labelSelector=${encodeURIComponent(`ls=y,${sel}`)}`)).then((a) => names(a.body));
      return [await q('tier=web'), await q('env=prod,tier!=web'), await q('tier in (db,cache)'), await q('!env'), await q('tier,env notin (prod)')];
    },
  },
  {
    name: 'a list in pages: limit and continue, the remaining count',
    run: async (s) => {
      for (const n of ['pg-a', 'pg-b', 'pg-c']) await s.request('POST', s.core('configmaps'), cm(n, {}, { pages: 'yes' }));
      const first = (await s.request('GET', s.core('configmaps?labelSelector=pages%3Dyes&limit=2'))).body;
      const next = (await s.request('GET', s.core(`configmaps?labelSelector=pages%3Dyes&limit=2&continue=${encodeURIComponent(first.metadata.continue)}`))).body;
      return { first: names(first), remaining: first.metadata.remainingItemCount, next: names(next), more: next.metadata.continue ?? '' };
    },
  },
  {
    name: 'a watch: ADDED, MODIFIED, DELETED in order',
    run: async (s) => {
      const rv = (await s.request('GET', s.core('configmaps?labelSelector=watch%3Dorder'))).body.metadata.resourceVersion;
      const w = s.watch(s.core(`configmaps?watch=true&labelSelector=watch%3Dorder&resourceVersion=${rv}`));
      await sleep(200);
      await s.request('POST', s.core('configmaps'), cm('w1', {}, { watch: 'order' }));
      await s.request('POST', s.core('configmaps'), cm('w2', {}, { watch: 'order' }));
      await s.request('PATCH', s.core('configmaps/w1'), { data: { a: '1' } }, MERGE);
      await s.request('DELETE', s.core('configmaps/w2'));
      const events = await w.until(4);
      w.close();
      return events;
    },
  },
  {
    name: 'a watch by label: an object that stops matching arrives as DELETED, one that starts as ADDED',
    run: async (s) => {
      await s.request('POST', s.core('configmaps'), cm('wl', {}, { watch: 'label', on: 'yes' }));
      const rv = (await s.request('GET', s.core('configmaps?labelSelector=watch%3Dlabel'))).body.metadata.resourceVersion;
      const w = s.watch(s.core(`configmaps?watch=true&labelSelector=${encodeURIComponent('watch=label,on=yes')}&resourceVersion=${rv}`));
      await sleep(200);
      await s.request('PATCH', s.core('configmaps/wl'), { metadata: { labels: { on: 'no' } } }, MERGE);
      await s.request('PATCH', s.core('configmaps/wl'), { metadata: { labels: { on: 'yes' } } }, MERGE);
      const events = await w.until(2);
      w.close();
      return events;
    },
  },
  {
    name: 'a watch by field selector metadata.name sees only that object',
    run: async (s) => {
      const rv = (await s.request('GET', s.core('configmaps'))).body.metadata.resourceVersion;
      const w = s.watch(s.core(`configmaps?watch=true&fieldSelector=metadata.name%3Dwf-b&resourceVersion=${rv}`));
      await sleep(200);
      for (const n of ['wf-a', 'wf-b', 'wf-c']) await s.request('POST', s.core('configmaps'), cm(n));
      await s.request('DELETE', s.core('configmaps/wf-b'));
      const events = await w.until(2);
      await sleep(200);
      w.close();
      return w.events;
    },
  },
  {
    name: 'a watch from a resourceVersion sees only what came after it',
    run: async (s) => {
      await s.request('POST', s.core('configmaps'), cm('wr1', {}, { watch: 'from' }));
      const rv = (await s.request('GET', s.core('configmaps?labelSelector=watch%3Dfrom'))).body.metadata.resourceVersion;
      await s.request('POST', s.core('configmaps'), cm('wr2', {}, { watch: 'from' }));
      const w = s.watch(s.core(`configmaps?watch=true&labelSelector=watch%3Dfrom&resourceVersion=${rv}`));
      const events = await w.until(1);
      await sleep(200);
      w.close();
      return w.events;
    },
  },
];
