// How long the fake API server takes to answer, and how many requests it serves at once. A
// real API server answers in milliseconds (DESIGN.md: measured on a one-node cluster under
// load), and a bench against an instant fake flatters anything sequential. The model: each
// request waits a time drawn around the mean of its verb and resource, and at most
// `maxInFlight` requests are served at once (kube-apiserver's --max-requests-inflight and
// --max-mutating-requests-inflight); the next `queueLength` wait for a seat and the rest are
// answered 429 with Retry-After, as its max-in-flight filter and priority-and-fairness queues do.
// Long-running requests (watches, exec, logs) take no seat, as on the real server.

/** What the model needs to know of one request. */
export interface RequestClass {
  /** APPLY (server-side apply), PATCH, PUT, POST, DELETE, GET (get and list). */
  verb: 'APPLY' | 'PATCH' | 'PUT' | 'POST' | 'DELETE' | 'GET';
  /** Plural resource, `workspaces`; a subresource after a slash, `userspaces/status`. */
  resource: string;
}

export interface LatencyProfile {
  name: string;
  /** Mean milliseconds by `VERB resource`, else `VERB *` and the subresource (`PUT *\/status`), else `VERB`; 0 answers at once. */
  meanMs: Record<string, number>;
  /**
   * How widely the times spread around the mean: `exponential` (as wide as the mean, a busy
   * server's service times; a wave of parallel requests waits for its slowest) or `fixed`.
   */
  spread: 'exponential' | 'fixed';
  /** Seats for reads (GET) and for writes; a request over them waits in the queue. */
  maxInFlight: { readOnly: number; mutating: number };
  /** Requests that may wait for a seat; beyond them the answer is 429. */
  queueLength: number;
  /**
   * The API server's CPU (kube-apiserver and etcd on shared cores): at most `seats` requests are
   * being worked on at once, each for `serviceShare` × its mean; the others wait in arrival order.
   * So a lone request takes `serviceShare` × its mean, n requests at once each about
   * n × `serviceShare` × mean ÷ `seats` past n = `seats`, and throughput saturates at
   * `seats` ÷ (service time). Without it, requests never slow each other down.
   */
  capacity?: { seats: number; serviceShare: number };
}

/**
 * The cluster of issue 23 (one node, 2 cores shared by etcd, the API server and Den), mean per
 * request as measured; kinds it did not measure take the nearest measured figure (ClusterRoles
 * as Roles, ClusterRoleBindings as RoleBindings, other applies as ServiceAccounts, other
 * writes as status writes). Seats and queue are kube-apiserver's defaults.
 */
export const CLUSTER_PROFILE: LatencyProfile = {
  name: 'cluster',
  meanMs: {
    'APPLY roles': 84,
    'APPLY clusterroles': 84,
    'APPLY rolebindings': 75,
    'APPLY clusterrolebindings': 75,
    'APPLY namespaces': 32,
    'APPLY serviceaccounts': 30,
    'APPLY networkpolicies': 28,
    'APPLY limitranges': 28,
    'APPLY resourcequotas': 27,
    APPLY: 30,
    'PUT userspaces/status': 20,
    'PUT workspaces/status': 18,
    'PUT */status': 20,
    PUT: 20,
    PATCH: 20,
    POST: 20,
    DELETE: 20,
    GET: 7,
  },
  spread: 'exponential',
  maxInFlight: { readOnly: 400, mutating: 200 },
  queueLength: 50,
};

/**
 * The same cluster with its CPU as a limit (issue 23's calibration, docs/manager.md): the means
 * above were measured during Den's cold start, when about `seats ÷ serviceShare` (10)
 * requests were waiting for the cluster's two cores; a request alone takes a fifth of them.
 * Calibrated on `kubectl apply --server-side` of 300 UserSpaces' 14 children in 8 streams
 * (21.9 s on the cluster: 4,200 applies at 192 per second). It predicts the cluster's other
 * figures worse than CLUSTER_PROFILE (the calibration bench): not a default, a model to ask
 * questions of saturation with.
 */
export const CLUSTER_CPU_PROFILE: LatencyProfile = {
  ...CLUSTER_PROFILE,
  name: 'cluster-cpu',
  capacity: { seats: 2, serviceShare: 0.193 },
};

/** The fake as it always was: every answer at once, no seat limit. */
export const INSTANT_PROFILE: LatencyProfile = {
  name: 'instant',
  meanMs: {},
  spread: 'fixed',
  maxInFlight: { readOnly: Infinity, mutating: Infinity },
  queueLength: 0,
};

/** The mean of one request in a profile: the most specific key that names it. */
export function meanOf(profile: LatencyProfile, request: RequestClass): number {
  const subresource = request.resource.includes('/') ? request.resource.slice(request.resource.indexOf('/')) : undefined;
  const keys = [`${request.verb} ${request.resource}`, ...(subresource ? [`${request.verb} *${subresource}`] : []), request.verb];
  for (const key of keys) if (profile.meanMs[key] !== undefined) return profile.meanMs[key]!;
  return 0;
}

/** A small seeded generator (mulberry32), so two runs of a bench draw the same times. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The request was refused for lack of a seat and queue room (429). */
export class TooManyRequests extends Error {
  override readonly name = 'TooManyRequests';
}

/** Requests in flight over time: now, the peak, and the time-weighted mean since the last reset. */
export interface InFlightFigures {
  now: number;
  peak: number;
  mean: number;
  /** Requests answered 429 since the last reset. */
  refused: number;
  /** Most requests holding a CPU seat at once since the last reset (with a capacity). */
  cpuPeak: number;
}

interface Seats {
  busy: number;
  waiting: (() => void)[];
}

export class LatencyModel {
  private readonly seats = { readOnly: { busy: 0, waiting: [] } as Seats, mutating: { busy: 0, waiting: [] } as Seats };
  private readonly cpu: Seats = { busy: 0, waiting: [] };
  private inFlight = 0;
  private peak = 0;
  private area = 0;
  private since = performance.now();
  private last = this.since;
  private refused = 0;
  private cpuPeak = 0;

  constructor(
    private profile: LatencyProfile = INSTANT_PROFILE,
    private random: () => number = seededRandom(23),
  ) {}

  get name(): string {
    return this.profile.name;
  }

  use(profile: LatencyProfile, random: () => number = seededRandom(23)): void {
    this.profile = profile;
    this.random = random;
  }

  /** Milliseconds this request will take (of the CPU, with a capacity), drawn from its mean. */
  draw(request: RequestClass): number {
    const mean = meanOf(this.profile, request) * (this.profile.capacity?.serviceShare ?? 1);
    if (mean <= 0 || this.profile.spread === 'fixed') return mean;
    return -mean * Math.log(1 - this.random());
  }

  /**
   * Serves one request: takes a seat (waiting in the queue, or throws TooManyRequests when
   * the queue is full), waits the drawn time, runs `serve`, and gives the seat back.
   */
  async serve<T>(request: RequestClass, serve: () => Promise<T>): Promise<T> {
    const kind = request.verb === 'GET' ? 'readOnly' : 'mutating';
    const seats = this.seats[kind];
    const full = seats.busy >= this.profile.maxInFlight[kind];
    if (full && seats.waiting.length >= this.profile.queueLength) {
      this.refused++;
      throw new TooManyRequests('Too many requests, please try again later.');
    }
    this.count(+1);
    try {
      if (full) {
        await new Promise<void>((resolve) => seats.waiting.push(resolve));
      } else seats.busy++;
      try {
        const ms = this.draw(request);
        if (ms > 0) await this.work(ms);
        return await serve();
      } finally {
        // The seat passes to the first in the queue, or is freed.
        const next = seats.waiting.shift();
        if (next) next();
        else seats.busy--;
      }
    } finally {
      this.count(-1);
    }
  }

  /** Holds a CPU seat (when the profile has a capacity) for `ms`, after those who came first. */
  private async work(ms: number): Promise<void> {
    const seats = this.profile.capacity?.seats ?? Infinity;
    if (this.cpu.busy >= seats) await new Promise<void>((resolve) => this.cpu.waiting.push(resolve));
    else this.cpu.busy++;
    this.cpuPeak = Math.max(this.cpuPeak, this.cpu.busy);
    try {
      await new Promise((resolve) => setTimeout(resolve, ms));
    } finally {
      const next = this.cpu.waiting.shift();
      if (next) next();
      else this.cpu.busy--;
    }
  }

  private count(delta: number): void {
    const now = performance.now();
    this.area += this.inFlight * (now - this.last);
    this.last = now;
    this.inFlight += delta;
    this.peak = Math.max(this.peak, this.inFlight);
  }

  figures(): InFlightFigures {
    this.count(0);
    const elapsed = this.last - this.since;
    return { now: this.inFlight, peak: this.peak, mean: elapsed > 0 ? this.area / elapsed : 0, refused: this.refused, cpuPeak: this.cpuPeak };
  }

  /** Starts the figures afresh (peak and mean from now on). */
  resetFigures(): void {
    this.count(0);
    this.area = 0;
    this.since = this.last;
    this.peak = this.inFlight;
    this.refused = 0;
    this.cpuPeak = this.cpu.busy;
  }
}
