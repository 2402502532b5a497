// moto_server (a Python fake of AWS) on a free loopback port, when the machine has it. Tests
// never depend on it: `startMoto` answers undefined where it is missing.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from './loopback.js';

export interface Moto {
  url: string;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export function hasMoto(): boolean {
  return spawnSync('sh', ['-c', 'command -v moto_server'], { stdio: 'ignore' }).status === 0;
}

export async function startMoto(): Promise<Moto | undefined> {
  if (!hasMoto()) return undefined;
  const port = await freePort();
  const child: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      const res = await fetch(`${url}/moto-api/`);
      if (res.ok || res.status < 500) break;
    } catch {
      // Not listening yet: retried until the deadline below.
    }
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGTERM');
      throw new Error(`moto_server did not start on ${url}`);
    }
    await new Promise((ok) => setTimeout(ok, 100));
  }
  return {
    url,
    async reset() {
      await fetch(`${url}/moto-api/reset`, { method: 'POST' });
    },
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
