// The TCP ports processes in a workspace pod listen on, read with one pods/exec as the person
// (their token decides): `cat /proc/net/tcp /proc/net/tcp6`, whose rows give the local address
// as `<hex address>:<hex port>` and the state as a hex code, 0A being LISTEN. A pod without
// IPv6 has no tcp6: cat says so on stderr and the IPv4 rows still count.
import { Writable } from 'node:stream';
import type { KubeClient } from '../kube/client.js';
import { startExec, type ExecTarget } from '../kube/exec.js';

export const LISTENING_PORTS_COMMAND = ['cat', '/proc/net/tcp', '/proc/net/tcp6'] as const;
const TCP_LISTEN = '0A';
/** More than any pod's socket tables hold in practice (150 bytes a row); the rest is not read. */
const MAX_OUTPUT_BYTES = 4 << 20;

/** The listening ports in /proc/net/tcp{,6} text, ascending, each once. */
export function listeningPorts(procNetTcp: string): number[] {
  const ports = new Set<number>();
  for (const line of procNetTcp.split('\n')) {
    const [slot, local, , state] = line.trim().split(/\s+/);
    if (!slot?.endsWith(':') || state !== TCP_LISTEN || !local) continue;
    const port = Number.parseInt(local.slice(local.lastIndexOf(':') + 1), 16);
    if (Number.isInteger(port) && port > 0 && port < 65536) ports.add(port);
  }
  return [...ports].sort((a, b) => a - b);
}

/** Runs the one exec and parses it; rejects with the API server's Status when the exec is refused. */
export async function readListeningPorts(client: KubeClient, target: ExecTarget): Promise<number[]> {
  const chunks: Buffer[] = [];
  let size = 0;
  const stdout = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (size < MAX_OUTPUT_BYTES) chunks.push(chunk);
      size += chunk.length;
      done();
    },
  });
  const stderr = new Writable({ write: (_c, _e, done) => done() });
  const session = await startExec(client, target, { command: [...LISTENING_PORTS_COMMAND], tty: false }, { stdout, stderr });
  const exit = await session.done;
  const text = Buffer.concat(chunks).toString('utf8');
  if (exit.exitCode !== 0 && !text.includes(':')) {
    throw new Error(exit.message ?? `reading /proc/net/tcp in the pod failed with exit code ${exit.exitCode}`);
  }
  return listeningPorts(text);
}
