// Kubernetes' name grammar has one home, kube/names.ts. Each grammar's good and bad values,
// taken from k8s.io/apimachinery/pkg/util/validation's own tests, are fed here to every Den
// reader that checks such a name, and each must answer as the rule does: the REST schemas
// and the OpenAPI description that states them, the webhook, the UserSpace hook, the SSH
// gateway, the browser terminal's path, the install settings, the CRD schema and the den CLI
// (whose context names copy the label grammar, since cli/dev imports nothing of Den).
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONTEXT_NAME } from '../../cli/dev/contexts.js';
import { ConnectionAuth } from '../../gateway/auth.js';
import { validateWorkspace } from '../../hooks/admission/validate-workspace.js';
import { planUserSpace } from '../../hooks/userspace/validate.js';
import { nameViolations, WORKSPACE_NAME_MAX } from '../../contract/workspace-rules.js';
import { imageVersion } from '../../infra/install/settings.js';
import { userNamespace } from '../../kube/group.js';
import { isDns1123Label, isDns1123Subdomain, isLabelValue, isQualifiedName, qualifiedNameProblems } from '../../kube/names.js';
import { createWorkspaceImageRequest, createWorkspaceRequest, namespaceQuery, userSpaceRequest } from '../../server/api/schemas.js';
import { issueTokenQuery } from '../../server/api/account-schemas.js';
import { TerminalServer, type TerminalDeps } from '../../server/terminal/upgrade.js';
import { KEY } from '../server/api/support.js';
import { userSpace } from '../hooks/userspace/inputs.js';
import { crdField, disagreements, installAccepts, openApiField, openApiQuery, restAccepts, schemaCheck } from './callers.js';

const a = (n: number) => 'a'.repeat(n);

// TestIsDNS1123Label
const LABEL_GOOD = ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '012', '1a', '1-1', '1--a--b--2', a(63)];
const LABEL_BAD = ['', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', 'a-', '-a', '1-', '-1', '_', 'a_', '_a', 'a_b', '1_', '_1', '1_2', '.', 'a.', '.a', 'a.b', '1.', '.1', '1.2', ' ', 'a ', ' a', 'a b', '1 ', ' 1', '1 2', a(64)];
// TestIsDNS1123Subdomain
const SUBDOMAIN_GOOD = [...LABEL_GOOD, 'a.a', 'ab.a', 'abc.a', 'a1.a', 'a-1.a', 'a--1--2--b.a', 'a.1', 'ab.1', 'abc.1', 'a1.1', 'a-1.1', 'a--1--2--b.1', '0.a', '01.a', '012.a', '1a.a', '1-1.a', '0.1', '01.1', '012.1', '1a.1', '1-1.1', '1--a--b--2.1', 'a.b.c.d.e', 'aa.bb.cc.dd.ee', '1.2.3.4.5', '11.22.33.44.55', a(253)];
const SUBDOMAIN_BAD = ['', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', 'a-', '-a', '1-', '-1', '_', 'a_', '_a', 'a_b', '1_', '_1', '1_2', '.', 'a.', '.a', 'a..b', '1.', '.1', '1..2', ' ', 'a ', ' a', 'a b', '1 ', ' 1', '1 2', 'A.a', 'aB.a', 'ab.A', 'A1.a', 'a1.A', 'A.1', 'aB.1', 'A1.1', '1A.1', '0.A', '01.A', '012.A', '1A.a', '1a.A', 'A.B.C.D.E', 'AA.BB.CC.DD.EE', 'a.B.c.d.e', 'aa.bB.cc.dd.ee', 'a@b', 'a,b', 'a;b', 'a:b', 'a%b', 'a?b', 'a$b', a(254)];
// TestIsDNS1035Label, with Den's own limit on a workspace name (WORKSPACE_NAME_MAX) at both sides of it.
const SERVICE_GOOD = ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', a(WORKSPACE_NAME_MAX)];
const SERVICE_BAD = ['0', '01', '012', '1a', '1-1', '1--a--b--2', '', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', 'a-', '-a', '1-', '-1', '_', 'a_', '_a', 'a_b', '1_', '_1', '1_2', '.', 'a.', '.a', 'a.b', '1.', '.1', '1.2', ' ', 'a ', ' a', 'a b', '1 ', ' 1', '1 2', a(WORKSPACE_NAME_MAX + 1), a(64)];
// TestIsQualifiedName
const KEY_GOOD = ['simple', 'now-with-dashes', '1-starts-with-num', '1234', 'simple/simple', 'now-with-dashes/simple', 'now-with-dashes/now-with-dashes', 'now.with.dots/simple', 'now-with.dashes-and.dots/simple', '1-num.2-num/3-num', '1234/5678', '1.2.3.4/5678', 'Uppercase_Is_OK_123', 'example.com/Uppercase_Is_OK_123', 'requests.storage-foo', a(63), `${a(253)}/${'b'.repeat(63)}`];
const KEY_BAD = ['nospecialchars%^=@', 'cantendwithadash-', '-cantstartwithadash-', 'only/one/slash', 'Example.com/abc', 'example_com/abc', 'example.com/', '/simple', a(64), `${a(254)}/abc`];
// TestIsValidLabelValue
const VALUE_GOOD = ['simple', 'now-with-dashes', '1-starts-with-num', 'end-with-num-1', '1234', a(63), '', 'A.B.C', 'a-b_c.d'];
const VALUE_BAD = ['nospecialchars%^=@', 'Tama-nui-te-rā.is.Māori.sun', '\\backslashes\\are\\bad', '-starts-with-dash', 'ends-with-dash-', '.starts.with.dot', 'ends.with.dot.', a(64), 'alice@example.com'];

function expectTable(good: string[], bad: string[], rule: (v: string) => boolean): void {
  expect(good.filter((v) => !rule(v)), 'apimachinery accepts, the rule refuses').to.deep.equal([]);
  expect(bad.filter(rule), 'apimachinery refuses, the rule accepts').to.deep.equal([]);
}

/** An object whose every use fails the test: a dependency the code path under test must not reach. */
function untouched<T>(what: string): T {
  return new Proxy({}, { get: (_t, key) => { throw new Error(`${what}.${String(key)} was used`); } }) as T;
}

describe('Kubernetes name grammar, fed alike to every reader of a name', () => {
  describe('an RFC 1123 label (a namespace, a token name, an SSH username)', () => {
    const all = [...LABEL_GOOD, ...LABEL_BAD];

    it('is what apimachinery says it is', () => expectTable(LABEL_GOOD, LABEL_BAD, isDns1123Label));

    it('is the namespace REST takes in a query, and the one the OpenAPI description states', () => {
      expect(disagreements(all, isDns1123Label, (v) => restAccepts(namespaceQuery, { namespace: v })), 'REST').to.deep.equal([]);
      expect(disagreements(all, isDns1123Label, openApiQuery('/workspaces', 'get', 'namespace')), 'OpenAPI').to.deep.equal([]);
    });

    it('is the token name REST takes, and the one the OpenAPI description states', () => {
      expect(disagreements(all, isDns1123Label, (v) => restAccepts(issueTokenQuery, { name: v })), 'REST').to.deep.equal([]);
      expect(disagreements(all, isDns1123Label, openApiQuery('/tokens', 'post', 'name')), 'OpenAPI').to.deep.equal([]);
    });

    it('is the SSH username the gateway looks a workspace up by; any other name is refused unlooked', async () => {
      const looked: string[] = [];
      const auth = new ConnectionAuth(
        {
          named: (name) => {
            looked.push(name);
            return [];
          },
          resolve: untouched('resolve'),
          banner: { send: () => false },
          log: () => undefined,
          maxAuthTries: all.length + 1,
          refused: () => undefined,
        },
        '192.0.2.1',
        untouched('onTooManyFailures'),
      );
      let rejected = 0;
      for (const username of all) {
        auth.handle({ username, method: 'publickey', key: { algo: 'ssh-ed25519', data: Buffer.alloc(51) }, accept: untouched('accept'), reject: () => void rejected++ });
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(rejected, 'every attempt is refused: no workspace authorizes the key').to.equal(all.length);
      expect(looked).to.deep.equal(all.filter(isDns1123Label));
    });

    it('is the workspace name in the browser terminal’s path: 404 for any other name', async () => {
      const server = http.createServer();
      const terminals = new TerminalServer({
        baseUrl: 'http://den.test',
        sessions: untouched('sessions'),
        directory: untouched('directory'),
        minter: untouched('minter'),
        serverClient: untouched('serverClient'),
        activity: untouched('activity'),
        events: () => Promise.reject(new Error('events were recorded')),
        log: () => undefined,
        ready: () => false, // past the path check a request meets 503, so the two answers tell the verdicts apart
      } satisfies TerminalDeps);
      terminals.attach(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const status = (name: string) =>
        new Promise<number>((resolve, reject) => {
          const req = http.request({ host: '127.0.0.1', port, path: `/w/${encodeURIComponent(name)}/terminal/ws`, headers: { connection: 'Upgrade', upgrade: 'websocket' } });
          req.on('response', (res) => (res.resume(), resolve(res.statusCode!)));
          req.on('upgrade', () => reject(new Error(`upgraded for ${name}`)));
          req.on('error', reject);
          req.end();
        });
      try {
        const answers = await Promise.all(all.map(status));
        expect(answers.filter((s) => s !== 404 && s !== 503), 'only 404 and 503').to.deep.equal([]);
        expect(disagreements(all, isDns1123Label, (v) => answers[all.indexOf(v)] === 503)).to.deep.equal([]);
      } finally {
        await terminals.close();
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('is the UserSpace name’s namespace svc-<name>, in the UserSpace hook and in REST', () => {
      const namespaceIsLabel = (v: string) => isDns1123Label(userNamespace(v));
      const hookTakes = (v: string) => {
        const plan = planUserSpace(userSpace({ name: v }), []);
        return plan.ok || !plan.problems.some((p) => p.startsWith('metadata.name'));
      };
      expect(disagreements(all, namespaceIsLabel, hookTakes), 'the UserSpace hook').to.deep.equal([]);
      // REST also wants the name itself to be a label, as every name it takes is.
      const restRule = (v: string) => isDns1123Label(v) && namespaceIsLabel(v);
      expect(disagreements(all, restRule, (v) => restAccepts(userSpaceRequest, { name: v, owner: 'alice@example.com' })), 'REST').to.deep.equal([]);
      expect(disagreements(all, restRule, openApiField('UserSpaceRequest', 'name')), 'OpenAPI').to.deep.equal([]);
    });

    it('is the den CLI’s context name, which ends every Host line it writes', () => {
      expect(disagreements(all, isDns1123Label, (v) => CONTEXT_NAME.test(v))).to.deep.equal([]);
    });
  });

  describe('an RFC 1123 subdomain (an object name, a Secret name, a host)', () => {
    const all = [...SUBDOMAIN_GOOD, ...SUBDOMAIN_BAD];

    it('is what apimachinery says it is', () => expectTable(SUBDOMAIN_GOOD, SUBDOMAIN_BAD, isDns1123Subdomain));

    it('is the catalog entry name REST takes and the OpenAPI description states, and the image a workspace names', () => {
      expect(disagreements(all, isDns1123Subdomain, (v) => restAccepts(createWorkspaceImageRequest, { name: v, image: 'ubuntu:24.04' })), 'REST entry').to.deep.equal([]);
      expect(disagreements(all, isDns1123Subdomain, openApiField('WorkspaceImageRequest', 'name')), 'OpenAPI entry').to.deep.equal([]);
      const workspace = (image: string) => ({ name: 'dev', image, storage: '10Gi', ssh_public_key: KEY });
      expect(disagreements(all, isDns1123Subdomain, (v) => restAccepts(createWorkspaceRequest, workspace(v))), 'REST workspace image').to.deep.equal([]);
      expect(disagreements(all, isDns1123Subdomain, openApiField('CreateWorkspaceRequest', 'image')), 'OpenAPI workspace image').to.deep.equal([]);
    });

    it('is the pull Secret and the gateway host the install settings take', () => {
      expect(disagreements(all, isDns1123Subdomain, (v) => installAccepts(`image:\n  pullSecrets: [${JSON.stringify(v)}]\n`)), 'pull secret').to.deep.equal([]);
      expect(disagreements(all, isDns1123Subdomain, (v) => installAccepts(`gatewayHost: ${JSON.stringify(v)}\n`)), 'gateway host').to.deep.equal([]);
    });
  });

  describe('a workspace name: a Service name (DNS-1035) of at most WORKSPACE_NAME_MAX characters', () => {
    const all = [...SERVICE_GOOD, ...SERVICE_BAD];
    const rule = (v: string) => nameViolations(v).length === 0;

    it('is what apimachinery says a Service name is, within Den’s length', () => expectTable(SERVICE_GOOD, SERVICE_BAD, rule));

    it('is the name the webhook admits', () => {
      const admits = (name: string) =>
        !validateWorkspace({
          operation: 'CREATE',
          namespace: 'svc-alice',
          object: { apiVersion: 'den.dev/v1alpha1', kind: 'Workspace', metadata: { name, namespace: 'svc-alice' }, spec: { imageRef: { name: 'ubuntu' }, storage: '10Gi', sshAuthorizedKeys: [KEY] } },
          image: undefined,
          userSpace: undefined,
          workspaces: [],
          claims: [],
          gpuResource: 'nvidia.com/gpu',
          now: new Date('2026-11-22T10:00:00Z'),
        }).some((v) => v.field === 'metadata.name');
      expect(disagreements(all, rule, admits)).to.deep.equal([]);
    });

    it('is the name REST takes and the OpenAPI description states', () => {
      expect(disagreements(all, rule, (v) => restAccepts(createWorkspaceRequest, { name: v, image: 'ubuntu', storage: '10Gi', ssh_public_key: KEY })), 'REST').to.deep.equal([]);
      expect(disagreements(all, rule, openApiField('CreateWorkspaceRequest', 'name')), 'OpenAPI').to.deep.equal([]);
    });
  });

  describe('a label key and a label value', () => {
    const keys = [...KEY_GOOD, ...KEY_BAD];
    const values = [...VALUE_GOOD, ...VALUE_BAD];

    it('are what apimachinery says they are', () => {
      expectTable(KEY_GOOD, KEY_BAD, isQualifiedName);
      expectTable(VALUE_GOOD, VALUE_BAD, isLabelValue);
    });

    it('are the labels and the GPU resource name the install settings take', () => {
      expect(disagreements(keys, isQualifiedName, (k) => installAccepts(`manager:\n  labels:\n    ${JSON.stringify(k)}: "x"\n`)), 'label key').to.deep.equal([]);
      expect(disagreements(values, isLabelValue, (v) => installAccepts(`manager:\n  labels:\n    team: ${JSON.stringify(v)}\n`)), 'label value').to.deep.equal([]);
      expect(disagreements(keys, isQualifiedName, (k) => installAccepts(`gpuResource: ${JSON.stringify(k)}\n`)), 'GPU resource').to.deep.equal([]);
    });

    it('is the image tag the install chart labels its pods with (app.kubernetes.io/version), or no label', () => {
      const labelled = (tag: string) => imageVersion(`ghcr.io/den-dev/den:${tag}`) === tag;
      expect(disagreements(values, (v) => v !== '' && isLabelValue(v), labelled)).to.deep.equal([]);
    });

    it('is a condition type in every CRD’s schema, of at most 316 characters as metav1.Condition says, but for the part lengths a pattern cannot state', () => {
      const lengthsOnly = (k: string) => qualifiedNameProblems(k).every((p) => p.includes('must be no more than'));
      const conditionType = (k: string) => (isQualifiedName(k) || lengthsOnly(k)) && k.length <= 316;
      for (const kind of ['Workspace', 'UserSpace', 'WorkspaceImage', 'ImageRegistry']) {
        const crd = schemaCheck(crdField(kind, ['status', 'conditions', '[]', 'type']));
        expect(disagreements(keys, conditionType, crd), kind).to.deep.equal([]);
      }
    });
  });
});
