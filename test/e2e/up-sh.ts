// The one-node Kubernetes 1.25 of ../shared/kube/cluster/up.sh, as the optional cluster suites
// (`npm run test:cluster`) use it: its address from up.sh's admin kubeconfig, the install chart
// but its Deployments (Den's processes run on this machine), and OpenSSH clients bounded in time.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { renderInstall } from '../../infra/install/synth.js';
import { DEFAULT_SETTINGS } from '../../infra/install/settings.js';
import type { KubeClient, KubeObject } from '../../kube/client.js';
import { RESOURCES, type ResourceType } from '../../kube/resources.js';
import type { CommandResult } from '../support/platform.js';
import { applyAll, realClient, type RealKubeAddress } from '../support/real-kube/cluster.js';

/** Where up.sh keeps the cluster's state (its $KC). */
export const KC = process.env.DEN_KC || '/var/tmp/den-kc';

/** The cluster up.sh started, from its admin kubeconfig; one line saying how to start it when it is not there. */
export async function upShCluster(): Promise<RealKubeAddress> {
  const kubeconfig = join(KC, 'admin.kubeconfig');
  if (!existsSync(kubeconfig)) throw new Error(`no cluster at ${KC}: start one with sudo ../shared/kube/cluster/up.sh (or name its folder in DEN_KC)`);
  const config = YAML.parse(await readFile(kubeconfig, 'utf8')) as {
    clusters: { cluster: { server: string; 'certificate-authority': string } }[];
    users: { user: { token: string } }[];
  };
  const { server, 'certificate-authority': caFile } = config.clusters[0]!.cluster;
  const address = { url: server, ca: await readFile(caFile, 'utf8'), adminToken: config.users[0]!.user.token, dir: await mkdtemp(join(tmpdir(), 'den-cluster-')) };
  const ready = await realClient(address).send({ path: '/readyz' }).catch((err: Error) => err);
  if (ready instanceof Error || ready.statusCode !== 200) {
    throw new Error(`the cluster at ${server} does not answer /readyz (${ready instanceof Error ? ready.message : `HTTP ${ready.statusCode}`}): is it up? (sudo ../shared/kube/cluster/up.sh)`);
  }
  ready.resume();
  return address;
}

const WEBHOOK_KINDS: Record<string, ResourceType> = {
  MutatingWebhookConfiguration: RESOURCES.mutatingWebhookConfiguration,
  ValidatingWebhookConfiguration: RESOURCES.validatingWebhookConfiguration,
};

/**
 * The chart but its Deployments: Den's processes run on this machine, not from an image the node
 * cannot pull. A webhook configuration a manager of an earlier run registered by URL is kept: the
 * chart's `service` beside that URL would be refused.
 */
export async function installChartObjects(admin: KubeClient): Promise<void> {
  const objects: KubeObject[] = [];
  for (const o of renderInstall(DEFAULT_SETTINGS) as KubeObject[]) {
    if (o.kind === 'CustomResourceDefinition' || o.kind === 'Deployment') continue;
    const webhooks = WEBHOOK_KINDS[o.kind!];
    if (webhooks && (await admin.getIfExists(webhooks, o.metadata!.name!))) continue;
    objects.push(o);
  }
  await applyAll(admin, [...objects.filter((o) => o.kind === 'Namespace'), ...objects.filter((o) => o.kind !== 'Namespace')]);
}

/**
 * Runs a program in its own process group and kills the whole group at `timeoutMs`: scp and sftp
 * run ssh as a child that holds their output open, so killing scp alone would never end the wait.
 */
export function runBounded(program: string, args: string[], timeoutMs: number): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
