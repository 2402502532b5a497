// The journey's environment on a real cluster: the one KUBECONFIG names, with Den installed
// (or installed here from dist/ when DEN_E2E_INSTALL=true), reached through
// `kubectl port-forward` unless addresses are given. Settings are read once from the
// environment and checked before anything runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient } from '../../kube/client.js';
import { loadConnection } from '../../kube/connection.js';
import { SYSTEM_NAMESPACE } from '../../kube/group.js';
import { RESOURCES, type ResourceType } from '../../kube/resources.js';
import { runCommand, type PlatformEnvironment } from '../support/platform.js';

export const DEPLOYMENTS = ['den-manager', 'den-server', 'den-gateway'] as const;

export interface E2eSettings {
  /** `DEN_E2E_INSTALL=true`: `npm run synth` and `kubectl apply -f dist/` before the journey. */
  install: boolean;
  /** `DEN_E2E_BASE_URL`: the server's address; default a port-forward to Service den-server. */
  baseUrl?: string;
  /** `DEN_E2E_SSH` (`host:port`): the gateway; default a port-forward to Service den-gateway. */
  ssh?: { host: string; port: number };
  /** `DEN_E2E_IMAGE`: the workspace image (needs /bin/bash and sleep; runs as uid 1000). */
  image: string;
  /** `DEN_E2E_TIMEOUT` in seconds: how long reconciliation, image pulls and pod shutdown may take. */
  convergeMs: number;
  /** `DEN_E2E_KEEP=true`: leave the run's objects in the cluster for a look afterwards. */
  keep: boolean;
}

export const DEFAULT_E2E_IMAGE = 'docker.io/library/ubuntu:24.04';
const DEFAULT_TIMEOUT_S = 300;

export class E2eSettingsError extends Error {}

function flag(env: Record<string, string | undefined>, name: string): boolean {
  const v = env[name];
  if (v === undefined || v === '' || v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1') return true;
  throw new E2eSettingsError(`${name}: expected true or false, got '${v}'`);
}

export function readE2eSettings(env: Record<string, string | undefined>): E2eSettings {
  let ssh: E2eSettings['ssh'];
  if (env.DEN_E2E_SSH) {
    const m = /^(.+):(\d{1,5})$/.exec(env.DEN_E2E_SSH);
    if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) throw new E2eSettingsError(`DEN_E2E_SSH: expected host:port, got '${env.DEN_E2E_SSH}'`);
    ssh = { host: m[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(m[2]) };
  }
  const baseUrl = env.DEN_E2E_BASE_URL ? env.DEN_E2E_BASE_URL.replace(/\/+$/, '') : undefined;
  if (baseUrl !== undefined && !/^https?:\/\/[^/]+/.test(baseUrl)) throw new E2eSettingsError(`DEN_E2E_BASE_URL: expected an http(s) URL, got '${baseUrl}'`);
  const timeout = env.DEN_E2E_TIMEOUT ? Number(env.DEN_E2E_TIMEOUT) : DEFAULT_TIMEOUT_S;
  if (!Number.isInteger(timeout) || timeout < 10) throw new E2eSettingsError(`DEN_E2E_TIMEOUT: expected whole seconds, at least 10, got '${env.DEN_E2E_TIMEOUT}'`);
  return {
    install: flag(env, 'DEN_E2E_INSTALL'),
    baseUrl,
    ssh,
    image: env.DEN_E2E_IMAGE || DEFAULT_E2E_IMAGE,
    convergeMs: timeout * 1000,
    keep: flag(env, 'DEN_E2E_KEEP'),
  };
}

async function kubectl(args: string[], timeoutMs = 120_000, env?: NodeJS.ProcessEnv): Promise<string> {
  const result = await runCommand('kubectl', args, { timeoutMs, env });
  if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (exit ${result.code}): ${result.stderr.trim() || result.stdout.trim()}`);
  return result.stdout;
}

/** `kubectl port-forward` to a Service on a free local port; resolves with that port. */
function portForward(service: string, port: number): Promise<{ port: number; child: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const child = spawn('kubectl', ['port-forward', '-n', SYSTEM_NAMESPACE, '--address', '127.0.0.1', `service/${service}`, `:${port}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`kubectl port-forward service/${service} did not start within 30 s: ${said.trim()}`));
    }, 30_000);
    const onOutput = (chunk: Buffer) => {
      said += chunk.toString('utf8');
      const m = /Forwarding from 127\.0\.0\.1:(\d+)/.exec(said);
      if (m) {
        clearTimeout(timer);
        resolve({ port: Number(m[1]), child });
      }
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', onOutput);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`kubectl port-forward: ${err.message}`));
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`kubectl port-forward service/${service} exited (${code}): ${said.trim()}`));
    });
  });
}

const DEPLOYMENT: ResourceType = { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true };

interface Deployment {
  status?: { availableReplicas?: number };
}

export class ClusterEnvironment implements PlatformEnvironment {
  baseUrl = '';
  ssh = { host: '', port: 0 };
  kubeconfig = '';
  admin!: KubeClient;
  workspaceImage: string;
  convergeMs: number;
  readonly suffix = randomBytes(2).toString('hex');
  private dir = '';
  private readonly forwards: ChildProcess[] = [];

  constructor(readonly settings: E2eSettings) {
    this.workspaceImage = settings.image;
    this.convergeMs = settings.convergeMs;
  }

  async connect(): Promise<this> {
    this.dir = await mkdtemp(join(tmpdir(), 'den-e2e-'));
    // One self-contained file for `den users add --kubeconfig` (KUBECONFIG may be a list).
    this.kubeconfig = join(this.dir, 'kubeconfig');
    await writeFile(this.kubeconfig, await kubectl(['config', 'view', '--raw', '--flatten', '--minify']), { mode: 0o600 });
    this.admin = new KubeClient(loadConnection(this.kubeconfig));
    if (this.settings.install) await this.install();
    await this.checkInstalled();
    if (this.settings.baseUrl) this.baseUrl = this.settings.baseUrl;
    else {
      const fwd = await portForward('den-server', 80);
      this.forwards.push(fwd.child);
      this.baseUrl = `http://127.0.0.1:${fwd.port}`;
    }
    if (this.settings.ssh) this.ssh = this.settings.ssh;
    else {
      const fwd = await portForward('den-gateway', 22);
      this.forwards.push(fwd.child);
      this.ssh = { host: '127.0.0.1', port: fwd.port };
    }
    return this;
  }

  async close(): Promise<void> {
    for (const child of this.forwards) child.kill('SIGTERM');
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
  }

  async diagnostics(): Promise<string> {
    const parts: string[] = [];
    for (const name of DEPLOYMENTS) {
      const result = await runCommand('kubectl', ['logs', '-n', SYSTEM_NAMESPACE, `deployment/${name}`, '--tail=25', '--kubeconfig', this.kubeconfig], { timeoutMs: 20_000 });
      const text = (result.code === 0 ? result.stdout : result.stderr).trim();
      parts.push(text.split('\n').map((l) => `  [${name}] ${l}`).join('\n'));
    }
    return parts.join('\n');
  }

  /** `npm run synth` (DEN_IMAGE and the other install settings come from this environment), then apply and wait. */
  private async install(): Promise<void> {
    const synth = await runCommand('npm', ['run', 'synth'], { timeoutMs: 300_000 });
    if (synth.code !== 0) throw new Error(`npm run synth failed: ${synth.stderr.trim() || synth.stdout.trim()}`);
    await kubectl(['apply', '--kubeconfig', this.kubeconfig, '-f', 'dist/'], 300_000);
    for (const name of DEPLOYMENTS) {
      await kubectl(['rollout', 'status', '--kubeconfig', this.kubeconfig, '-n', SYSTEM_NAMESPACE, `deployment/${name}`, `--timeout=${Math.round(this.convergeMs / 1000)}s`], this.convergeMs + 10_000);
    }
  }

  /** Den must be installed and running; says exactly what is missing otherwise. */
  private async checkInstalled(): Promise<void> {
    const missing: string[] = [];
    for (const crd of ['workspaces.den.dev', 'workspaceimages.den.dev', 'userspaces.den.dev', 'imageregistries.den.dev']) {
      await this.admin.get(RESOURCES.customResourceDefinition, crd).catch((err: Error) => missing.push(`CustomResourceDefinition ${crd}: ${err.message}`));
    }
    for (const name of DEPLOYMENTS) {
      try {
        const d = await this.admin.get<Deployment>(DEPLOYMENT, name, SYSTEM_NAMESPACE);
        if (!d.status?.availableReplicas) missing.push(`Deployment ${SYSTEM_NAMESPACE}/${name} has no available replica`);
      } catch (err) {
        missing.push(`Deployment ${SYSTEM_NAMESPACE}/${name}: ${(err as Error).message}`);
      }
    }
    if (missing.length) {
      throw new Error(`Den is not installed and running on this cluster (see docs/testing.md, or set DEN_E2E_INSTALL=true):\n  ${missing.join('\n  ')}`);
    }
  }
}
