// The admission webhooks' figures: reviews by webhook and answer, how long each took, and
// the rules that refused them.
import { Counter, Histogram, type Registry } from 'prom-client';

export class AdmissionMetrics {
  readonly reviews: Counter<'webhook' | 'allowed'>;
  readonly duration: Histogram<'webhook'>;
  readonly denials: Counter<'webhook' | 'rule'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.reviews = new Counter({ name: 'den_admission_reviews_total', help: 'AdmissionReviews answered, by webhook and whether allowed.', labelNames: ['webhook', 'allowed'], registers });
    this.duration = new Histogram({
      name: 'den_admission_review_duration_seconds',
      help: 'Time from an AdmissionReview arriving to its answer.',
      labelNames: ['webhook'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers,
    });
    this.denials = new Counter({ name: 'den_admission_denials_total', help: 'Refusals by webhook and rule (one per rule a refusal names).', labelNames: ['webhook', 'rule'], registers });
  }
}
