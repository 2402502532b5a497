// Authentication decisions with a Workspace cache fed by hand and a fake AuthContext
// that records what ssh2 would have been told.
import { expect } from 'chai';
import ssh2 from 'ssh2';
import { ConnectionAuth, DEFAULT_MAX_AUTH_TRIES, type AuthRequest } from '../../gateway/auth.js';
import type { AuthFailureReason } from '../../gateway/metrics.js';
import { generateHostKey } from '../../ssh/host-key.js';
import { findAuthorizedKey, parseAuthorizedKey } from '../../gateway/keys.js';
import { SessionRefused, type GatewayTarget } from '../../gateway/target.js';
import { indexWorkspaceEvent, WorkspaceDirectory, type Workspace, type WorkspaceNameIndex } from '../../gateway/workspaces.js';
import type { CacheEvent } from '../../kube/informer.js';
import { generateSshKey } from '../support/ssh-keys.js';
import { denCrds } from '../../contract/index.js';
import { FakeApiServer } from '../support/fake-apiserver.js';
import { eventually } from '../support/platform.js';

function generate(type: 'ed25519' | 'ecdsa' | 'rsa'): { private: string; public: string } {
  if (type === 'ed25519') {
    const pair = generateHostKey('test');
    return { private: pair.privateKey, public: pair.publicKey };
  }
  const key = generateSshKey(type);
  return { private: key.privateKey.export({ type: type === 'rsa' ? 'pkcs1' : 'sec1', format: 'pem' }).toString(), public: key.publicLine };
}

function keyPair(type: 'ed25519' | 'ecdsa' | 'rsa' = 'ed25519') {
  const pair = generate(type);
  const priv = ssh2.utils.parseKey(pair.private) as ssh2.ParsedKey;
  return { publicLine: pair.public, priv, blob: priv.getPublicSSH(), type: priv.type };
}

function ws(name: string, namespace: string, keys: string[]): Workspace {
  return { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name, namespace, resourceVersion: '1' }, spec: { sshAuthorizedKeys: keys }, status: { phase: 'Running' } };
}

interface Outcome {
  accepted: boolean;
  rejected: boolean;
  methods?: string[];
}

/** What ssh2's PublicKeyAuthContext carries, with the signature made by `signer`. */
function pkContext(username: string, key: ReturnType<typeof keyPair>, opts: { sign?: boolean; signer?: ssh2.ParsedKey } = {}) {
  const outcome: Outcome = { accepted: false, rejected: false };
  const blob = Buffer.from('session-id-and-request');
  const ctx: AuthRequest = {
    username,
    method: 'publickey',
    key: { algo: key.type, data: key.blob },
    blob: opts.sign ? blob : undefined,
    signature: opts.sign ? (opts.signer ?? key.priv).sign(blob) : undefined,
    hashAlgo: undefined,
    accept: () => (outcome.accepted = true),
    reject: (methods?: string[]) => {
      outcome.rejected = true;
      outcome.methods = methods;
    },
  };
  return { ctx, outcome };
}

function otherContext(method: string) {
  const outcome: Outcome = { accepted: false, rejected: false };
  const ctx: AuthRequest = {
    username: 'demo',
    method,
    accept: () => (outcome.accepted = true),
    reject: (methods?: string[]) => {
      outcome.rejected = true;
      outcome.methods = methods;
    },
  };
  return { ctx, outcome };
}

async function settle(): Promise<void> {
  await new Promise((r) => setImmediate(r));
}

describe('gateway authentication', () => {
  const alice = keyPair();
  const mallory = keyPair();
  let index: WorkspaceNameIndex;
  let banners: string[];
  let resolved: Workspace[];
  let refuse: SessionRefused | undefined;
  let dropped: number;
  let refusals: AuthFailureReason[];

  function auth(): ConnectionAuth {
    return new ConnectionAuth(
      {
        named: (name) => [...(index.get(name)?.values() ?? [])],
        resolve: async (w) => {
          resolved.push(w);
          if (refuse) throw refuse;
          return { namespace: w.metadata!.namespace!, workspace: w.metadata!.name!, workspaceUid: 'uid', pod: `${w.metadata!.name}-0`, shell: '/bin/bash', homePath: '/home/dev' } satisfies GatewayTarget;
        },
        banner: { send: (_ctx, message) => (banners.push(message), true) },
        log: () => undefined,
        maxAuthTries: DEFAULT_MAX_AUTH_TRIES,
        refused: (reason) => refusals.push(reason),
      },
      '127.0.0.1:50000',
      () => (dropped += 1),
    );
  }

  function feed(...items: Workspace[]) {
    for (const object of items) indexWorkspaceEvent(index, { type: 'ADDED', object });
  }

  beforeEach(() => {
    index = new Map();
    banners = [];
    resolved = [];
    refuse = undefined;
    dropped = 0;
    refusals = [];
  });

  it('answers a key query (no signature) for an authorized key without resolving anything yet', async () => {
    feed(ws('demo', 'svc-a', [alice.publicLine]));
    const { ctx, outcome } = pkContext('demo', alice);
    auth().handle(ctx);
    await settle();
    expect(outcome).to.deep.equal({ accepted: true, rejected: false });
    expect(resolved).to.have.length(0);
  });

  it('accepts a verified signature by an authorized key and resolves that workspace', async () => {
    feed(ws('demo', 'svc-a', [mallory.publicLine, alice.publicLine]));
    const a = auth();
    const { ctx, outcome } = pkContext('demo', alice, { sign: true });
    a.handle(ctx);
    await settle();
    expect(outcome.accepted).to.equal(true);
    expect(a.target).to.include({ namespace: 'svc-a', workspace: 'demo', pod: 'demo-0' });
  });

  it('refuses a signature made by another key', async () => {
    feed(ws('demo', 'svc-a', [alice.publicLine]));
    const { ctx, outcome } = pkContext('demo', alice, { sign: true, signer: mallory.priv });
    auth().handle(ctx);
    await settle();
    expect(outcome).to.deep.equal({ accepted: false, rejected: true, methods: ['publickey'] });
    expect(resolved).to.have.length(0);
    expect(refusals).to.deep.equal(['bad-signature']);
  });

  it('refuses unknown names and unlisted keys the same way, without a banner', async () => {
    feed(ws('demo', 'svc-a', [alice.publicLine]));
    for (const [user, key] of [['nosuch', alice], ['demo', mallory], ['Demo', alice], ['../demo', alice]] as const) {
      const { ctx, outcome } = pkContext(user, key, { sign: true });
      auth().handle(ctx);
      await settle();
      expect(outcome, user).to.deep.equal({ accepted: false, rejected: true, methods: ['publickey'] });
    }
    expect(banners).to.deep.equal([]);
    expect(refusals).to.deep.equal(['unknown-key', 'unknown-key', 'unknown-key', 'unknown-key']);
  });

  it('picks, among namespaces with a workspace of that name, the one whose keys match', async () => {
    feed(ws('demo', 'svc-a', [mallory.publicLine]), ws('demo', 'svc-b', [alice.publicLine]));
    const a = auth();
    const { ctx, outcome } = pkContext('demo', alice, { sign: true });
    a.handle(ctx);
    await settle();
    expect(outcome.accepted).to.equal(true);
    expect(a.target?.namespace).to.equal('svc-b');
  });

  it('refuses, with a banner, a name whose workspaces in several namespaces all accept the key', async () => {
    feed(ws('demo', 'svc-a', [alice.publicLine]), ws('demo', 'svc-b', [alice.publicLine]));
    const { ctx, outcome } = pkContext('demo', alice, { sign: true });
    auth().handle(ctx);
    await settle();
    expect(outcome.rejected).to.equal(true);
    expect(banners).to.deep.equal(['workspace name demo exists in several namespaces (svc-a, svc-b) that all accept this key; remove the key from all but one']);
    expect(resolved).to.have.length(0);
    expect(refusals).to.deep.equal(['ambiguous-name']);
  });

  it('shows the reason of a refused target to the key holder on the banner', async () => {
    feed(ws('demo', 'svc-a', [alice.publicLine]));
    refuse = new SessionRefused('workspace demo is Suspended; start it first', 'svc-a/demo: suspended');
    const { ctx, outcome } = pkContext('demo', alice, { sign: true });
    auth().handle(ctx);
    await settle();
    expect(outcome.rejected).to.equal(true);
    expect(banners).to.deep.equal(['workspace demo is Suspended; start it first']);
    expect(refusals).to.deep.equal(['workspace-unavailable']);
  });

  it('refuses password and keyboard-interactive, and answers none with publickey only', () => {
    for (const method of ['password', 'keyboard-interactive', 'hostbased', 'none']) {
      const { ctx, outcome } = otherContext(method);
      auth().handle(ctx);
      expect(outcome, method).to.deep.equal({ accepted: false, rejected: true, methods: ['publickey'] });
    }
  });

  it(`disconnects, instead of answering, at the ${DEFAULT_MAX_AUTH_TRIES}th refused key and ignores what follows`, async () => {
    feed(ws('demo', 'svc-a', [alice.publicLine]));
    const a = auth();
    const outcomes: Outcome[] = [];
    for (let i = 0; i < DEFAULT_MAX_AUTH_TRIES + 2; i++) {
      const { ctx, outcome } = pkContext('demo', mallory, { sign: i % 2 === 1 });
      a.handle(ctx);
      await settle();
      outcomes.push(outcome);
      expect(dropped, `after attempt ${i + 1}`).to.equal(i + 1 < DEFAULT_MAX_AUTH_TRIES ? 0 : 1);
    }
    expect(outcomes.map((o) => o.rejected)).to.deep.equal([true, true, true, true, true, false, false, false]);
  });

  it('counts every none request but the first, and unsupported methods, as failures (as sshd does)', () => {
    const a = auth();
    a.handle(otherContext('none').ctx);
    for (let i = 0; i < DEFAULT_MAX_AUTH_TRIES - 1; i++) a.handle(otherContext(i % 2 ? 'password' : 'none').ctx);
    expect(dropped).to.equal(0);
    a.handle(otherContext('none').ctx);
    expect(dropped).to.equal(1);
  });

  it('does not count a key query answered "this key would do", nor the first none', async () => {
    feed(ws('demo', 'svc-a', [alice.publicLine]));
    const a = auth();
    a.handle(otherContext('none').ctx);
    for (let i = 0; i < 20; i++) {
      const { ctx, outcome } = pkContext('demo', alice);
      a.handle(ctx);
      await settle();
      expect(outcome.accepted).to.equal(true);
    }
    for (let i = 0; i < DEFAULT_MAX_AUTH_TRIES - 1; i++) {
      a.handle(pkContext('demo', mallory).ctx);
      await settle();
    }
    expect(dropped).to.equal(0);
    const { ctx, outcome } = pkContext('demo', alice, { sign: true });
    a.handle(ctx);
    await settle();
    expect(outcome.accepted).to.equal(true);
  });

  it('uses the configured maximum', async () => {
    const a = new ConnectionAuth({ named: () => [], resolve: () => Promise.reject(new Error('unused')), banner: { send: () => true }, log: () => undefined, maxAuthTries: 2, refused: () => undefined }, '127.0.0.1:1', () => (dropped += 1));
    a.handle(otherContext('password').ctx);
    expect(dropped).to.equal(0);
    a.handle(otherContext('password').ctx);
    expect(dropped).to.equal(1);
  });
});

describe('authorized key matching', () => {
  for (const type of ['ed25519', 'ecdsa', 'rsa'] as const) {
    it(`matches an ${type} key by type and blob, whatever its comment`, () => {
      const k = keyPair(type);
      const [kind, b64] = k.publicLine.split(' ');
      const entries = ['ssh-ed25519 garbage', `${kind} ${b64} laptop`];
      expect(findAuthorizedKey({ algo: k.type, data: k.blob }, entries)?.type).to.equal(k.type);
      expect(findAuthorizedKey({ algo: k.type, data: keyPair(type).blob }, entries)).to.equal(undefined);
    });
  }

  it('ignores entries that are not public keys', () => {
    const k = keyPair();
    expect(parseAuthorizedKey(42)).to.equal(undefined);
    expect(parseAuthorizedKey('not a key')).to.equal(undefined);
    expect(parseAuthorizedKey(generateHostKey().privateKey)).to.equal(undefined);
    expect(findAuthorizedKey({ algo: k.type, data: k.blob }, undefined)).to.equal(undefined);
  });

  it("matches a list seen before on its own entries, and a Workspace's replaced list on the new ones: a removed key is refused", () => {
    const [kept, removed] = [keyPair(), keyPair()];
    const before = [removed.publicLine, kept.publicLine];
    const after = [kept.publicLine];
    for (let i = 0; i < 2; i++) {
      expect(findAuthorizedKey({ algo: removed.type, data: removed.blob }, before)?.blob.equals(removed.blob)).to.equal(true);
      expect(findAuthorizedKey({ algo: removed.type, data: removed.blob }, after)).to.equal(undefined);
      expect(findAuthorizedKey({ algo: kept.type, data: kept.blob }, after)?.blob.equals(kept.blob)).to.equal(true);
    }
  });

  it('picks, among 300 Workspaces of one name, the one that authorizes the offered key, at every attempt', () => {
    const keys = Array.from({ length: 300 }, () => keyPair());
    const lists = keys.map((k) => [k.publicLine]);
    for (let attempt = 0; attempt < 2; attempt++) {
      for (const i of [0, 150, 299]) {
        const offered = { algo: keys[i]!.type, data: keys[i]!.blob };
        expect(lists.flatMap((entries, j) => (findAuthorizedKey(offered, entries) ? [j] : []))).to.deep.equal([i]);
      }
    }
  });

  it('does not accept a key whose blob matches under another type name', () => {
    const k = keyPair();
    expect(findAuthorizedKey({ algo: 'ssh-rsa', data: k.blob }, [k.publicLine])).to.equal(undefined);
  });
});

describe('workspace name index', () => {
  it('follows adds, updates and deletes from the cache', () => {
    const handlers: ((e: CacheEvent<Workspace>) => void)[] = [];
    const directory = new WorkspaceDirectory({ on: (h) => handlers.push(h), list: () => [ws('demo', 'svc-b', [])] });
    const emit = (e: CacheEvent<Workspace>) => handlers.forEach((h) => h(e));
    emit({ type: 'ADDED', object: ws('demo', 'svc-a', ['k']) });
    expect(directory.named('demo').map((w) => w.metadata?.namespace)).to.deep.equal(['svc-a', 'svc-b']);
    emit({ type: 'MODIFIED', object: ws('demo', 'svc-a', ['k2']) });
    expect(directory.named('demo')[0]!.spec?.sshAuthorizedKeys).to.deep.equal(['k2']);
    emit({ type: 'DELETED', object: ws('demo', 'svc-a', []) });
    emit({ type: 'DELETED', object: ws('demo', 'svc-b', []) });
    expect(directory.named('demo')).to.deep.equal([]);
  });
});

describe('gateway authentication when its cache lags behind the cluster', () => {
  const alice = keyPair();
  let api: FakeApiServer;

  beforeEach(async () => {
    api = new FakeApiServer();
    await api.start();
    api.installCrds(denCrds().map((crd) => ({ ...crd })));
  });
  afterEach(() => api.close());

  /** A gateway whose Workspace cache has seen nothing yet (its watch event still on the way). */
  function lagging(): { auth: ConnectionAuth; refusals: AuthFailureReason[] } {
    const directory = new WorkspaceDirectory({ on: () => undefined, list: () => [] }, api.client());
    const refusals: AuthFailureReason[] = [];
    const auth = new ConnectionAuth(
      {
        named: (name) => directory.named(name),
        current: (name) => directory.current(name),
        resolve: async (w) => ({ namespace: w.metadata!.namespace!, workspace: w.metadata!.name!, workspaceUid: 'uid', pod: `${w.metadata!.name}-0`, shell: '/bin/bash', homePath: '/home/dev' }),
        banner: { send: () => true },
        log: () => undefined,
        maxAuthTries: DEFAULT_MAX_AUTH_TRIES,
        refused: (reason) => refusals.push(reason),
      },
      '127.0.0.1:50000',
      () => undefined,
    );
    return { auth, refusals };
  }

  it('asks the API server before refusing a key, and accepts one a Workspace written a moment ago authorizes', async () => {
    api.seed(ws('fresh', 'svc-a', [alice.publicLine]));
    const { auth, refusals } = lagging();
    const { ctx, outcome } = pkContext('fresh', alice, { sign: true });
    auth.handle(ctx);
    await eventually(() => outcome.accepted || outcome.rejected, 'an answer', 5_000, 5);
    expect(outcome).to.deep.equal({ accepted: true, rejected: false });
    expect(auth.target).to.include({ namespace: 'svc-a', workspace: 'fresh' });
    expect(refusals).to.deep.equal([]);
  });

  it('still refuses a key no Workspace of that name authorizes in the cluster either', async () => {
    api.seed(ws('fresh', 'svc-a', [keyPair().publicLine]));
    const { auth, refusals } = lagging();
    const { ctx, outcome } = pkContext('fresh', alice, { sign: true });
    auth.handle(ctx);
    await eventually(() => outcome.accepted || outcome.rejected, 'an answer', 5_000, 5);
    expect(outcome).to.deep.equal({ accepted: false, rejected: true, methods: ['publickey'] });
    expect(refusals).to.deep.equal(['unknown-key']);
  });
});
