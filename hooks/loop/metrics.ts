// The loop's figures per controller: reconciles by result, their duration, retries scheduled
// after failures, and the keys waiting or running in the work queue.
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export class LoopMetrics {
  readonly reconciles: Counter<'controller' | 'result'>;
  readonly duration: Histogram<'controller'>;
  readonly retries: Counter<'controller'>;
  /** Events recorded about parents: `reason="Stopped"` counts idle stops, `reason="Resized"` resizes. */
  readonly events: Counter<'controller' | 'reason'>;
  private readonly depth = new Map<string, () => number>();

  constructor(registry: Registry) {
    const registers = [registry];
    this.reconciles = new Counter({ name: 'den_reconciles_total', help: 'Reconciles by controller and result (ok, error).', labelNames: ['controller', 'result'], registers });
    this.duration = new Histogram({
      name: 'den_reconcile_duration_seconds',
      help: 'Time one reconcile took: hook, applies, prunes, status write.',
      labelNames: ['controller'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.retries = new Counter({ name: 'den_reconcile_retries_total', help: 'Retries scheduled after a failed reconcile.', labelNames: ['controller'], registers });
    this.events = new Counter({ name: 'den_events_total', help: 'Kubernetes Events the manager recorded about parents, by reason (Stopped: idle stops; Resized: resizes).', labelNames: ['controller', 'reason'], registers });
    const depth = this.depth;
    new Gauge({
      name: 'den_workqueue_depth',
      help: 'Parents waiting for or in a reconcile.',
      labelNames: ['controller'],
      registers,
      collect() {
        for (const [controller, size] of depth) this.set({ controller }, size());
      },
    });
  }

  /** Reports the queue of `controller` at every scrape. */
  watchQueue(controller: string, size: () => number): void {
    this.depth.set(controller, size);
  }
}
