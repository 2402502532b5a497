// Who is an administrator is the cluster's answer, not a list of names (SPEC 1.2 rule 6): a
// SubjectAccessReview asks whether the requester may update every UserSpace. The answer is
// cached briefly per identity, so a burst of edits costs one review. The webhook port does not
// authenticate its caller, so the questions are also rate limited: a flood of reviews with
// made-up identities must not become a flood of SubjectAccessReviews under the manager's name.
import type { KubeClient } from '../../kube/client.js';
import { GROUP, PLURALS } from '../../kube/group.js';
import type { UserInfo } from './review.js';

export const SUBJECT_ACCESS_REVIEW_PATH = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

interface SubjectAccessReview {
  status?: { allowed?: boolean };
}

export interface AdminCheckOptions {
  ttlMs?: number;
  maxEntries?: number;
  /** SubjectAccessReviews per second, sustained; twice as many may go in a burst. */
  maxReviewsPerSecond?: number;
  now?: () => number;
}

export class AdminChecker {
  private readonly answers = new Map<string, { admin: boolean; expires: number }>();
  private readonly pending = new Map<string, Promise<boolean>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly perSecond: number;
  private tokens: number;
  private refilledAt: number;

  constructor(private readonly client: KubeClient, opts: AdminCheckOptions = {}) {
    this.ttlMs = opts.ttlMs ?? 30_000;
    this.maxEntries = opts.maxEntries ?? 1000;
    this.now = opts.now ?? Date.now;
    this.perSecond = opts.maxReviewsPerSecond ?? 20;
    this.tokens = 2 * this.perSecond;
    this.refilledAt = this.now();
  }

  private mayAsk(): boolean {
    const now = this.now();
    this.tokens = Math.min(2 * this.perSecond, this.tokens + ((now - this.refilledAt) * this.perSecond) / 1000);
    this.refilledAt = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** The whole identity is the key: the same name with other groups may have other rights. */
  private keyOf(user: UserInfo): string {
    return JSON.stringify([user.username, user.uid ?? '', [...(user.groups ?? [])].sort(), user.extra ?? {}]);
  }

  async isAdmin(user: UserInfo): Promise<boolean> {
    const key = this.keyOf(user);
    const cached = this.answers.get(key);
    if (cached && cached.expires > this.now()) return cached.admin;
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    if (!this.mayAsk()) throw new Error(`too many administrator checks (more than ${this.perSecond} a second)`);
    const asking = this.ask(user)
      .then((admin) => {
        if (this.answers.size >= this.maxEntries) this.answers.delete(this.answers.keys().next().value!);
        this.answers.set(key, { admin, expires: this.now() + this.ttlMs });
        return admin;
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, asking);
    return asking;
  }

  private async ask(user: UserInfo): Promise<boolean> {
    const review = await this.client.request<SubjectAccessReview>({
      method: 'POST',
      path: SUBJECT_ACCESS_REVIEW_PATH,
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: user.username,
          ...(user.uid ? { uid: user.uid } : {}),
          groups: user.groups ?? [],
          ...(user.extra ? { extra: user.extra } : {}),
          resourceAttributes: { group: GROUP, resource: PLURALS.userSpace, verb: 'update' },
        },
      },
      timeoutMs: 5_000,
    });
    return review?.status?.allowed === true;
  }
}
