import { expect } from 'chai';
import { RegistryListings, type ListFunction } from '../../../hooks/registry/listings.js';
import { RegistryError } from '../../../hooks/registry/provider.js';
import type { ImageRegistry, RegistryListing } from '../../../hooks/registry/types.js';

function registry(generation = 1, forceSync?: string, uid = 'uid-1'): ImageRegistry {
  return {
    apiVersion: 'den.dev/v1alpha1',
    kind: 'ImageRegistry',
    metadata: { name: 'ecr', uid, generation, ...(forceSync ? { annotations: { 'den.dev/force-sync': forceSync } } : {}) },
    spec: { provider: 'cloud-registry', cloud: { region: 'eu-west-1' } },
  };
}

function harness(list: ListFunction, timeoutMs = 60_000) {
  let now = 1_000_000;
  const delays: [number, string][] = [];
  const listings = new RegistryListings(list, {
    intervalMs: () => 900_000,
    retryDelayMs: (_r, failures, error) => (delays.push([failures, error.reason]), 15_000 * 2 ** (failures - 1)),
    timeoutMs,
    clock: () => now,
  });
  return { listings, delays, advance: (ms: number) => (now += ms) };
}

const signal = () => new AbortController().signal;

describe('RegistryListings (when a registry is listed again)', () => {
  it('lists once and serves the remembered listing until the interval has passed', async () => {
    let calls = 0;
    const { listings, advance } = harness(async () => ({ repositories: [{ name: `r${++calls}`, uri: 'u', images: [] }] }));
    const first = await listings.view(registry(), signal());
    expect(first).to.include({ state: 'listed' });
    expect(first.dueAt.getTime() - first.at.getTime()).to.equal(900_000);
    advance(899_999);
    expect(await listings.view(registry(), signal())).to.equal(first);
    advance(1);
    const second = await listings.view(registry(), signal());
    expect(second.state === 'listed' && second.listing.repositories[0]!.name).to.equal('r2');
  });

  it('lists again at once when the generation, the force-sync value or the object changes', async () => {
    let calls = 0;
    const { listings } = harness(async () => (calls++, { repositories: [] }));
    await listings.view(registry(1), signal());
    await listings.view(registry(1), signal());
    await listings.view(registry(2), signal());
    await listings.view(registry(2, 'a'), signal());
    await listings.view(registry(2, 'a'), signal());
    await listings.view(registry(2, 'b'), signal());
    await listings.view(registry(2, 'b', 'uid-2'), signal());
    expect(calls).to.equal(5);
  });

  it('remembers a failure with its reason and retries after delays that grow with each failure in a row', async () => {
    let fail = true;
    const { listings, delays, advance } = harness(async () => {
      if (fail) throw new RegistryError('Throttled', 'Rate exceeded');
      return { repositories: [] };
    });
    const failed = await listings.view(registry(), signal());
    expect(failed).to.deep.include({ state: 'failed', reason: 'Throttled', message: 'Rate exceeded' });
    expect(failed.dueAt.getTime() - failed.at.getTime()).to.equal(15_000);
    expect(await listings.view(registry(), signal())).to.equal(failed);
    advance(15_000);
    const again = await listings.view(registry(), signal());
    expect(again.dueAt.getTime() - again.at.getTime()).to.equal(30_000);
    fail = false;
    advance(30_000);
    expect(await listings.view(registry(), signal())).to.include({ state: 'listed' });
    expect(delays).to.deep.equal([[1, 'Throttled'], [2, 'Throttled']]);
  });

  it('reports an error that is not a RegistryError as ListingFailed', async () => {
    const { listings } = harness(async () => {
      throw new Error('socket hang up');
    });
    expect(await listings.view(registry(), signal())).to.deep.include({ state: 'failed', reason: 'ListingFailed', message: 'socket hang up' });
  });

  it('aborts a listing past its timeout', async () => {
    let seen: AbortSignal | undefined;
    const list: ListFunction = (_r, s) => new Promise<RegistryListing>((_ok, fail) => {
      seen = s;
      s.addEventListener('abort', () => fail(new RegistryError('TimedOut', 'abandoned')));
    });
    const { listings } = harness(list, 20);
    expect(await listings.view(registry(), signal())).to.include({ state: 'failed', reason: 'TimedOut' });
    expect(seen?.aborted).to.equal(true);
  });

  it('rejects and remembers nothing when the reconcile itself is abandoned', async () => {
    let calls = 0;
    const stop = new AbortController();
    const list: ListFunction = (_r, s) => (calls++, new Promise<RegistryListing>((_ok, fail) => s.addEventListener('abort', () => fail(new Error('aborted')))));
    const { listings } = harness(list);
    const pending = listings.view(registry(), stop.signal);
    stop.abort();
    await pending.then(() => expect.fail('resolved'), (err: Error) => expect(err.message).to.equal('aborted'));
    const retry = new AbortController();
    const next = listings.view(registry(), retry.signal);
    retry.abort();
    await next.then(() => expect.fail('resolved'), (err: Error) => expect(err.message).to.equal('aborted'));
    expect(calls, 'the abandoned listing was not remembered').to.equal(2);
  });
});
