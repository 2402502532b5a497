// One Prometheus registry per process, made by the role and handed to what it runs; each part
// registers its own figures on it (hooks/loop/metrics.ts, hooks/admission/metrics.ts, …), and
// the health server answers GET /metrics with all of them. No figure lives in module state.
import { collectDefaultMetrics, Registry } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();

  /** With the Node.js process figures (CPU, memory, event loop lag, handles) under `den_process_`/`den_nodejs_`. */
  constructor(opts: { processFigures?: boolean } = {}) {
    if (opts.processFigures ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'den_' });
  }

  /** The text exposition format and its content type. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
