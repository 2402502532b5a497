// The journey's workspace steps (journey.ts): a person creates a workspace within their quota,
// the manager runs it, and SSH reaches it through the gateway with the right key only.
import { expect } from 'chai';
import { ANNOTATIONS, LABELS, homeClaimName } from '../../kube/group.js';
import { RESOURCES } from '../../kube/resources.js';
import { eventually, gone, runCommand } from '../support/platform.js';
import { ssh, sshOptions } from './rest.js';
import type { JourneyState } from './journey-state.js';

/** Defines these steps (mocha `it`s, in order) on the journey's shared state. */
export function workspaceSteps(s: JourneyState): void {
  it('creating a workspace with a real SSH key answers 201, stamped with who asked', () =>
    s.diagnose(async () => {
      const { names, rest, aliceKey, alice, aliceNs } = s;
      const created = await rest.call('POST', '/workspaces', {
        body: { name: names.workspace, image: names.image, cpu: '500m', memory: '512Mi', storage: '1Gi', ssh_public_key: aliceKey.publicKey },
        as: { session: alice },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.metadata).to.include({ name: names.workspace, namespace: aliceNs() });
      expect(created.body.metadata.annotations?.[ANNOTATIONS.requester]).to.equal(`system:serviceaccount:${aliceNs()}:session`);
      expect(created.body.spec.sshAuthorizedKeys).to.deep.equal([aliceKey.publicKey]);
      expect(created.body.spec.running, 'the CRD default of spec.running').to.equal(true);
      const again = await rest.call('POST', '/workspaces', {
        body: { name: names.workspace, image: names.image, storage: '1Gi', ssh_public_key: aliceKey.publicKey },
        as: { session: alice },
      });
      // The validating webhook refuses it (400); only if its cache has not seen the first one yet
      // does the API server's storage answer AlreadyExists (409).
      expect(again.status, `the same name twice: ${JSON.stringify(again.body)}`).to.be.oneOf([400, 409]);
      expect(again.body.error).to.include(names.workspace).and.include('already exists');
    }));

  it("refuses a workspace that would exceed the person's quota, naming the quota", () =>
    s.diagnose(async () => {
      const { names, rest, aliceKey, alice, cluster, aliceNs } = s;
      const name = `${names.workspace}-big`;
      const refused = await rest.call('POST', '/workspaces', {
        body: { name, image: names.image, cpu: '5', memory: '512Mi', storage: '1Gi', ssh_public_key: aliceKey.publicKey },
        as: { session: alice },
      });
      // A quota refusal is a 403, as the API server's own ResourceQuota admission answers (DESIGN.md).
      expect(refused.status, JSON.stringify(refused.body)).to.equal(403);
      expect(refused.body.error).to.include(`exceeded quota of UserSpace "${names.alice}" (spec.quota.cpu)`);
      expect(await gone(cluster(RESOURCES.workspace, name, aliceNs()))).to.equal(true);
    }));

  it('the manager creates the Service and the StatefulSet, and the workspace becomes Running', () =>
    s.diagnose(async () => {
      const { env, names, rest, alice, cluster, aliceNs } = s;
      const ns = aliceNs();
      const sts = await eventually(() => cluster(RESOURCES.statefulSet, names.workspace, ns), `StatefulSet ${names.workspace}`, env.convergeMs);
      expect(sts.spec.replicas).to.equal(1);
      expect(sts.spec.template.metadata.labels[LABELS.workspace]).to.equal(names.workspace);
      expect(sts.metadata.ownerReferences?.[0]).to.include({ kind: 'Workspace', name: names.workspace, controller: true });
      const svc = await eventually(() => cluster(RESOURCES.service, names.workspace, ns), `Service ${names.workspace}`, env.convergeMs);
      expect(svc.spec.clusterIP).to.equal('None');
      const ws = await eventually(async () => {
        const answer = await rest.call('GET', `/workspaces/${names.workspace}`, { as: { session: alice } });
        return answer.status === 200 && answer.body.status?.phase === 'Running' && answer.body;
      }, `workspace ${names.workspace} Running`, env.convergeMs);
      expect(ws.status.podName).to.equal(`${names.workspace}-0`);
      expect(ws.status.endpoint).to.match(new RegExp(`^${names.workspace}@\\S+$`));
      const pod = await cluster(RESOURCES.pod, `${names.workspace}-0`, ns);
      expect(pod.metadata.labels[LABELS.workspace]).to.equal(names.workspace);
      await cluster(RESOURCES.persistentVolumeClaim, homeClaimName(names.workspace), ns);
    }));

  it("refuses a workspace with a corrupt SSH key with 400 and the webhook's message", () =>
    s.diagnose(async () => {
      const { names, rest, alice, cluster, aliceNs } = s;
      const name = `${names.workspace}-bad`;
      const corrupt = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIThisIsNotAKeyBlob journey@corrupt';
      const refused = await rest.call('POST', '/workspaces', { body: { name, image: names.image, storage: '1Gi', ssh_public_key: corrupt }, as: { session: alice } });
      expect(refused.status, JSON.stringify(refused.body)).to.equal(400);
      expect(refused.body.error).to.include('admission webhook "vworkspace.den.dev" denied the request').and.include('sshAuthorizedKeys');
      expect(await gone(cluster(RESOURCES.workspace, name, aliceNs()))).to.equal(true);
    }));

  it('ssh runs a command in the workspace and passes its output and exit code through', () =>
    s.diagnose(async () => {
      const { env, names, aliceKey, cluster, aliceNs } = s;
      const result = await ssh(env, aliceKey.file, names.workspace, 'echo hello; exit 3');
      expect(result.stdout, result.stderr).to.equal('hello\n');
      expect(result.code).to.equal(3);
      const ws = await eventually(async () => {
        const w = await cluster(RESOURCES.workspace, names.workspace, aliceNs());
        return typeof w.status?.lastActivityTime === 'string' && w;
      }, 'status.lastActivityTime from the gateway', env.convergeMs);
      expect(Date.parse(ws.status.lastActivityTime)).to.be.a('number').and.not.NaN;
    }));

  it('ssh -tt gives an interactive login shell on a terminal', () =>
    s.diagnose(async () => {
      const { env, names, aliceKey } = s;
      const result = await runCommand(
        'ssh',
        ['-tt', ...sshOptions(env, aliceKey.file), `${names.workspace}@${env.ssh.host}`],
        { stdin: 'echo "answer=$((6*7)) tty=$(test -t 0 && echo yes)"\nexit 4\n', timeoutMs: 30_000 },
      );
      expect(result.stdout, result.stderr).to.include('answer=42 tty=yes');
      expect(result.code).to.equal(4);
    }));

  it("the workspace's logs are read with the person's own token", () =>
    s.diagnose(async () => {
      const { env, names, rest, alice, aliceNs } = s;
      const logs = await rest.call('GET', `/workspaces/${names.workspace}/logs?tail=5`, { as: { session: alice } });
      expect(logs.status, JSON.stringify(logs.body)).to.equal(200);
      expect(logs.body).to.include({ namespace: aliceNs(), pod: `${names.workspace}-0` });
      const written = env.podLog?.(`${names.workspace}-0`);
      if (written) expect(logs.body.lines).to.equal(`${written.trimEnd().split('\n').slice(-5).join('\n')}\n`);
      else expect((logs.body.lines as string).trimEnd().split('\n').length, 'lines of ?tail=5').to.be.at.most(5);
      const bad = await rest.call('GET', `/workspaces/${names.workspace}/logs?tail=0`, { as: { session: alice } });
      expect(bad.status).to.equal(400);
      expect(bad.body.error).to.include('tail');
    }));

  it('ssh with a key the workspace does not list is refused', () =>
    s.diagnose(async () => {
      const { env, names, otherKey } = s;
      const result = await ssh(env, otherKey.file, names.workspace, 'echo hello');
      expect(result.code).to.equal(255);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.include('Permission denied');
    }));

  it('the gateway refuses a pod relabelled by hand, and connects again once the label is back', () =>
    s.diagnose(async () => {
      const { env, names, aliceKey, aliceNs } = s;
      const pod = `${names.workspace}-0`;
      const relabel = (value: string) => env.admin.patch(RESOURCES.pod, pod, { metadata: { labels: { [LABELS.workspace]: value } } }, { namespace: aliceNs(), type: 'merge' });
      await relabel(`${names.workspace}-elsewhere`);
      try {
        const refused = await ssh(env, aliceKey.file, names.workspace, 'echo hello');
        expect(refused.code).to.equal(255);
        expect(refused.stdout).to.equal('');
        // Which check notices first depends on whether the manager has re-read the pod yet.
        expect(refused.stderr).to.satisfy(
          (text: string) => text.includes(`pod ${pod} does not carry the label ${LABELS.workspace}=${names.workspace}; refusing to connect`) || text.includes(`workspace ${names.workspace} is Starting`),
          refused.stderr,
        );
      } finally {
        await relabel(names.workspace);
      }
      const back = await eventually(async () => {
        const result = await ssh(env, aliceKey.file, names.workspace, 'echo hello');
        return result.code === 0 && result;
      }, 'SSH to work again', env.convergeMs, 500);
      expect(back.stdout).to.equal('hello\n');
    }));
}
