import { expect } from 'chai';
import type { KubeObject } from '../../../kube/client.js';
import { Poller, type PolledSource } from '../../../hooks/loop/poller.js';
import { eventually } from '../support/eventually.js';

function parent(trigger: string): KubeObject {
  return { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'a', annotations: { trigger } } };
}

interface Pending {
  trigger: string;
  signal: AbortSignal;
  resolve(value: string): void;
  reject(error: unknown): void;
}

function harness(overrides: Partial<PolledSource<string>> = {}) {
  const fetches: Pending[] = [];
  const requests: string[] = [];
  const source: PolledSource<string> = {
    trigger: (p) => p.metadata?.annotations?.trigger ?? '',
    intervalMs: () => 60_000,
    retryDelayMs: () => 60_000,
    timeoutMs: 60_000,
    fetch: (p, signal) => new Promise<string>((resolve, reject) => fetches.push({ trigger: p.metadata?.annotations?.trigger ?? '', signal, resolve, reject })),
    ...overrides,
  };
  const poller = new Poller(source, { request: (key) => requests.push(key) });
  return { poller, fetches, requests };
}

describe('Poller (a polled outside source of a controller)', () => {
  it('fetches once per trigger, answers pending until the result arrives, then asks for a reconcile', async () => {
    const { poller, fetches, requests } = harness();
    expect(poller.observe('a', parent('1'))).to.deep.equal({ state: 'pending' });
    expect(poller.observe('a', parent('1'))).to.deep.equal({ state: 'pending' });
    expect(fetches).to.have.length(1);
    fetches[0]!.resolve('listing');
    await eventually(() => requests.length === 1, 'a reconcile request');
    expect(requests).to.deep.equal(['a']);
    const view = poller.observe('a', parent('1'));
    expect(view).to.include({ state: 'fetched', value: 'listing' });
    expect(fetches).to.have.length(1);
    poller.stop();
  });

  it('starts again at once when the trigger changes, dropping the superseded fetch and its result', async () => {
    const { poller, fetches, requests } = harness();
    poller.observe('a', parent('1'));
    expect(poller.observe('a', parent('2'))).to.deep.equal({ state: 'pending' });
    expect(fetches).to.have.length(2);
    expect(fetches[0]!.signal.aborted).to.equal(true);
    fetches[0]!.resolve('stale');
    fetches[1]!.resolve('fresh');
    await eventually(() => requests.length === 1, 'one reconcile request');
    expect(poller.observe('a', parent('2'))).to.include({ value: 'fresh' });
    poller.stop();
  });

  it('asks again once the interval has passed and keeps answering the last result meanwhile', async () => {
    const { poller, fetches, requests } = harness({ intervalMs: () => 30 });
    poller.observe('a', parent('1'));
    fetches[0]!.resolve('first');
    await eventually(() => requests.length === 2, 'the result and the interval requests');
    expect(poller.observe('a', parent('1'))).to.include({ state: 'fetched', value: 'first' });
    expect(fetches).to.have.length(2);
    poller.stop();
  });

  it('reports a failure with its count and waits the retry delay it is given', async () => {
    const delays: number[] = [];
    const { poller, fetches, requests } = harness({ retryDelayMs: (_p, failures) => (delays.push(failures), 20 * failures) });
    poller.observe('a', parent('1'));
    fetches[0]!.reject(new Error('denied'));
    await eventually(() => requests.length === 1, 'the failure request');
    const view = poller.observe('a', parent('1'));
    expect(view).to.include({ state: 'failed', failures: 1 });
    expect(fetches).to.have.length(1);
    await eventually(() => requests.length === 2, 'the retry request');
    poller.observe('a', parent('1'));
    fetches[1]!.reject(new Error('denied'));
    await eventually(() => delays.length === 2, 'the second failure');
    expect(delays).to.deep.equal([1, 2]);
    poller.stop();
  });

  it('aborts a fetch that runs past its timeout', async () => {
    const { poller, fetches } = harness({ timeoutMs: 20 });
    poller.observe('a', parent('1'));
    await eventually(() => fetches[0]!.signal.aborted, 'the timeout');
    poller.stop();
  });

  it('abandons fetches and timers of a forgotten parent and after stop, requesting nothing more', async () => {
    const { poller, fetches, requests } = harness({ intervalMs: () => 10 });
    poller.observe('a', parent('1'));
    poller.observe('b', parent('1'));
    poller.forget('a');
    expect(fetches[0]!.signal.aborted).to.equal(true);
    fetches[0]!.resolve('late');
    poller.stop();
    expect(fetches[1]!.signal.aborted).to.equal(true);
    fetches[1]!.resolve('late');
    await new Promise((ok) => setTimeout(ok, 50));
    expect(requests).to.deep.equal([]);
  });
});
