import { readFileSync } from 'node:fs';
import net from 'node:net';
import { expect } from 'chai';
import { freePort } from './loopback.js';

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
});
