// Figures of token minting (kube/minting.ts), in den server and den gateway alike: cache use and TokenRequests.
import { Counter, Histogram, type Registry } from 'prom-client';

export class MintingMetrics {
  readonly cache: Counter<'result'>;
  readonly tokenRequests: Histogram<'result'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.cache = new Counter({ name: 'den_minted_token_cache_total', help: 'Minted-token look-ups: hit (cached token reused) or miss (TokenRequest or a shared one in flight).', labelNames: ['result'], registers });
    this.tokenRequests = new Histogram({
      name: 'den_token_request_duration_seconds',
      help: 'TokenRequests to the API server for a person\'s ServiceAccount, by result (ok, error).',
      labelNames: ['result'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
  }
}
