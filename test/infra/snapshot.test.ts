import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { synthInstall } from '../../infra/install/synth.js';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '../..');
const SNAPSHOT = join(import.meta.dirname, '__snapshots__', 'den.k8s.yaml');
const UPDATE = 'review the change, then run `UPDATE_SNAPSHOTS=1 npx mocha test/infra/snapshot.test.ts` and commit the snapshot';

async function withTempDir<T>(body: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'den-synth-'));
  try {
    return await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('synthesized install manifests', () => {
  it('match the committed snapshot (test/infra/__snapshots__/den.k8s.yaml)', async () => {
    const rendered = await withTempDir(async (dir) => {
      synthInstall(DEFAULT_SETTINGS, dir);
      return readFile(join(dir, 'den.k8s.yaml'), 'utf8');
    });
    if (process.env.UPDATE_SNAPSHOTS === '1') await writeFile(SNAPSHOT, rendered);
    const snapshot = await readFile(SNAPSHOT, 'utf8');
    expect(rendered === snapshot, UPDATE).to.equal(true);
  });

  it('`cdk8s synth` writes one YAML file of the expected kinds, identical to the snapshot', async function () {
    this.timeout(60_000);
    await withTempDir(async (dir) => {
      // No DEN_* variables: the defaults are what the snapshot pins.
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('DEN_')));
      await run(join(ROOT, 'node_modules/.bin/cdk8s'), ['synth', '--no-check-upgrade', '--output', dir], { cwd: ROOT, env });
      expect(await readdir(dir)).to.deep.equal(['den.k8s.yaml']);
      const text = await readFile(join(dir, 'den.k8s.yaml'), 'utf8');
      const documents = parseAllDocuments(text);
      for (const d of documents) expect(d.errors).to.deep.equal([]);
      const kinds = documents.map((d) => (d.toJS() as { kind: string }).kind);
      const count = (kind: string) => kinds.filter((k) => k === kind).length;
      expect(count('Namespace')).to.equal(1);
      expect(count('CustomResourceDefinition')).to.equal(4);
      expect(count('ServiceAccount')).to.equal(3);
      expect(count('ClusterRole')).to.equal(4);
      expect(count('ClusterRoleBinding')).to.equal(3);
      expect(count('Role')).to.equal(2);
      expect(count('RoleBinding')).to.equal(2);
      expect(count('Deployment')).to.equal(3);
      expect(count('Service')).to.equal(3);
      expect(count('PodDisruptionBudget')).to.equal(3);
      expect(count('NetworkPolicy')).to.equal(4);
      expect(count('MutatingWebhookConfiguration')).to.equal(1);
      expect(count('ValidatingWebhookConfiguration')).to.equal(1);
      expect(kinds).to.have.length(34);
      expect(text === (await readFile(SNAPSHOT, 'utf8')), UPDATE).to.equal(true);
    });
  });

  it('`npm run synth -- --config FILE` stops at a bad key with one line naming it, exit 2, and leaves the output folder alone', async function () {
    this.timeout(60_000);
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'den.k8s.yaml'), 'the manifests of the last good run\n');
      await writeFile(join(dir, 'den.yaml'), 'server:\n  replicas: 0\n');
      const env = { ...process.env, CDK8S_OUTPUT: dir };
      const failure = await run('npm', ['run', 'synth', '--', '--config', join(dir, 'den.yaml')], { cwd: ROOT, env }).then(
        () => undefined,
        (err: { code: number; stderr: string }) => err,
      );
      expect(failure?.code).to.equal(2);
      const said = (failure?.stderr ?? '').split('\n').filter((line) => line && !line.startsWith('npm warn'));
      expect(said).to.deep.equal(['den install: server.replicas: must be an integer ≥ 1']);
      expect(await readFile(join(dir, 'den.k8s.yaml'), 'utf8')).to.equal('the manifests of the last good run\n');
    });
  });

  it('`npm run synth` renders the configuration file named by DEN_CONFIG', async function () {
    this.timeout(60_000);
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'den.yaml'), 'gateway:\n  replicas: 5\n');
      // cdk8s synth empties its output folder first, so the file lives beside it.
      const env = { ...process.env, CDK8S_OUTPUT: join(dir, 'out'), DEN_CONFIG: join(dir, 'den.yaml') };
      await run('npm', ['run', 'synth'], { cwd: ROOT, env });
      const objects = parseAllDocuments(await readFile(join(dir, 'out', 'den.k8s.yaml'), 'utf8')).map((d) => d.toJS() as { kind: string; metadata: { name: string }; spec: { replicas: number } });
      const gateway = objects.find((o) => o.kind === 'Deployment' && o.metadata.name === 'den-gateway');
      expect(gateway?.spec.replicas).to.equal(5);
    });
  });

  it('`npm run synth` stops at a wrong setting with one line naming the variable, exit 2, and leaves the output folder alone', async function () {
    this.timeout(60_000);
    await withTempDir(async (dir) => {
      await writeFile(join(dir, 'den.k8s.yaml'), 'the manifests of the last good run\n');
      const env = { ...process.env, DEN_BASE_URL: 'den.example.com', CDK8S_OUTPUT: dir };
      const failure = await run('npm', ['run', 'synth'], { cwd: ROOT, env }).then(
        () => undefined,
        (err: { code: number; stderr: string }) => err,
      );
      expect(failure?.code).to.equal(2);
      const said = (failure?.stderr ?? '').split('\n').filter((line) => line && !line.startsWith('npm warn'));
      expect(said).to.deep.equal(['den install: DEN_BASE_URL: "den.example.com" is not an http or https URL']);
      expect(await readFile(join(dir, 'den.k8s.yaml'), 'utf8')).to.equal('the manifests of the last good run\n');
    });
  });
});
