import { expect } from 'chai';
import { Counter } from 'prom-client';
import { startHealthServer } from '../../process/health.js';
import { Metrics } from '../../process/metrics.js';
import { parseExposition, total } from '../support/metrics.js';

describe('health server', () => {
  it('answers /healthz always, /readyz as the role says, and /metrics with the process registry', async () => {
    let ready = false;
    const metrics = new Metrics();
    const counter = new Counter({ name: 'den_test_things_total', help: 'things', registers: [metrics.registry] });
    const health = await startHealthServer({ host: '127.0.0.1', port: 0 }, () => ready, metrics);
    try {
      const base = `http://127.0.0.1:${health.address.port}`;
      expect((await fetch(`${base}/healthz`)).status).to.equal(200);
      expect((await fetch(`${base}/readyz`)).status).to.equal(503);
      ready = true;
      expect((await fetch(`${base}/readyz`)).status).to.equal(200);
      counter.inc(3);
      const res = await fetch(`${base}/metrics`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
      const samples = parseExposition(await res.text());
      expect(total(samples, 'den_test_things_total')).to.equal(3);
      expect(total(samples, 'den_process_start_time_seconds')).to.be.above(0);
      expect((await fetch(`${base}/other`)).status).to.equal(404);
    } finally {
      await health.close();
    }
  });

  it('keeps each process\'s figures apart: two registries never share a counter', async () => {
    const a = new Metrics({ processFigures: false });
    const b = new Metrics({ processFigures: false });
    new Counter({ name: 'den_test_total', help: 'x', registers: [a.registry] }).inc();
    new Counter({ name: 'den_test_total', help: 'x', registers: [b.registry] });
    expect(total(parseExposition((await a.exposition()).body), 'den_test_total')).to.equal(1);
    expect(total(parseExposition((await b.exposition()).body), 'den_test_total')).to.equal(0);
  });
});
