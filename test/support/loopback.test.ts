import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { claimPort, freePort, PORT_LOCKS } from './loopback.js';
import { REPO_ROOT } from './den-process.js';

/** A second test process that hands out `n` ports, prints them, and then waits for stdin to close (or is killed). */
function otherProcess(n: number) {
  const script = `import { freePort } from './test/support/loopback.ts'; const ports = []; for (let i = 0; i < ${n}; i++) ports.push(await freePort()); console.log(JSON.stringify(ports)); process.stdin.resume(); process.stdin.on('end', () => process.exit(0));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
  const ports = new Promise<number[]>((resolve) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(JSON.parse(out) as number[]);
    });
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { child, ports, exited };
}

describe('freePort (test support)', () => {
  it('never hands out the same port twice in one process, even while none of them is bound yet', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 300; i++) ports.push(await freePort());
    expect(new Set(ports).size).to.equal(ports.length);
  });

  it('hands out ports below the kernel ephemeral range, where outgoing connections never land, and each can be bound', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const port = await freePort();
    expect(port).to.be.below(low);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('never hands out a port another test process holds, and frees its ports when that process exits', async function () {
    this.timeout(20_000);
    const other = otherProcess(20);
    const theirs = await other.ports;
    for (const port of theirs) {
      expect(readFileSync(join(PORT_LOCKS, String(port)), 'utf8')).to.equal(String(other.child.pid));
      expect(claimPort(port), `port ${port}`).to.equal(false);
    }
    other.child.stdin!.end();
    await other.exited;
    for (const port of theirs) expect(existsSync(join(PORT_LOCKS, String(port))), `lock of ${port}`).to.equal(false);
  });

  it('takes over the lock of a test process that was killed', async function () {
    this.timeout(20_000);
    const other = otherProcess(1);
    const [port] = await other.ports;
    other.child.kill('SIGKILL');
    await other.exited;
    expect(existsSync(join(PORT_LOCKS, String(port)))).to.equal(true);
    expect(claimPort(port!)).to.equal(true);
    expect(readFileSync(join(PORT_LOCKS, String(port)), 'utf8')).to.equal(String(process.pid));
  });
});
