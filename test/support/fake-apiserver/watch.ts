// Watch delivery as kube-apiserver's watch cache does it: an event reaches watchers only
// after the write that made it has been answered (the writer sees its response first),
// in resourceVersion order, optionally after a lag; BOOKMARK events on request.
import { AsyncLocalStorage } from 'node:async_hooks';
import type http from 'node:http';
import type { KubeObject } from '../../../kube/client.js';
import { status } from './api-error.js';

export interface WatchEntry {
  rv: number;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  typeKey: string;
  object: KubeObject;
  /** The object before a MODIFIED event: a watch's selector is checked against both. */
  previous?: KubeObject;
}

export interface Watcher {
  typeKey: string;
  kind: string;
  apiVersion: string;
  namespace?: string;
  labels: (l: Record<string, string> | undefined) => boolean;
  fields: (o: any) => boolean;
  res: http.ServerResponse;
  /** The resourceVersion of the last event this watcher holds. */
  lastRv: number;
  /** Extra milliseconds this watcher's events wait (its client's own lag: one replica trailing another). */
  lagMs?: () => number;
  /** Events held back by the watcher's own lag, in order. */
  backlog?: { due: number; line: string }[];
  timer?: NodeJS.Timeout;
}

interface Pending {
  entry: WatchEntry;
  readyAt?: number;
}

/** The writes of one HTTP request, held back until its response has been sent. */
interface RequestScope {
  held: Pending[];
  answered: boolean;
}

export interface WatchHubOptions {
  /** Events kept for watches; older resourceVersions answer 410 Gone. */
  historyLimit: number;
  /** Milliseconds between a write's response and its watch events (0: at once). */
  lagMs: number;
  /** Milliseconds between BOOKMARK events on watches that allow them (kube-apiserver: about a minute). */
  bookmarkIntervalMs: number;
}

export class WatchHub {
  history: WatchEntry[] = [];
  compactedRv = 0;
  /** Every event up to this resourceVersion has reached the watchers. */
  deliveredRv = 0;
  private watchers = new Set<Watcher>();
  private queue: Pending[] = [];
  private timer?: NodeJS.Timeout;
  private scope = new AsyncLocalStorage<RequestScope>();

  constructor(private readonly opts: WatchHubOptions) {}

  /** Events of writes answered from now on wait this long (those already waiting keep their time). */
  setLag(ms: number): void {
    this.opts.lagMs = ms;
  }

  /** Runs one HTTP request's handling: what it writes reaches watchers once `res` has been sent. */
  inRequest(res: http.ServerResponse, handle: () => Promise<void>): Promise<void> {
    const scope: RequestScope = { held: [], answered: false };
    const release = () => {
      if (scope.answered) return;
      scope.answered = true;
      for (const p of scope.held.splice(0)) this.ready(p);
    };
    res.once('finish', release);
    res.once('close', release);
    return this.scope.run(scope, handle);
  }

  publish(entry: WatchEntry): void {
    this.history.push(entry);
    if (this.history.length > this.opts.historyLimit) {
      const dropped = this.history.splice(0, this.history.length - this.opts.historyLimit);
      this.compactedRv = dropped[dropped.length - 1]!.rv;
    }
    const pending: Pending = { entry };
    this.queue.push(pending);
    const scope = this.scope.getStore();
    if (scope && !scope.answered) scope.held.push(pending);
    else this.ready(pending);
  }

  compact(rv: number): void {
    this.compactedRv = rv;
    this.history = [];
  }

  /**
   * Starts a watch from `fromRv` (0: `initial`, the current objects, as ADDED events). With
   * `bookmarks`, BOOKMARK events follow the initial events (marked as their end when
   * `initialEventsEnd`) and then come every bookmarkIntervalMs.
   */
  open(w: Omit<Watcher, 'lastRv' | 'backlog' | 'timer'>, fromRv: number, initial: KubeObject[] | undefined, opts: { bookmarks: boolean; initialEventsEnd: boolean; currentRv: number }): void {
    const { res } = w;
    res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' });
    res.flushHeaders(); // as kube-apiserver does: a watcher knows it is watching before any event
    if (fromRv > 0 && fromRv < this.compactedRv) {
      res.end(JSON.stringify({ type: 'ERROR', object: status(410, 'Expired', `too old resource version: ${fromRv} (${this.compactedRv})`) }) + '\n');
      return;
    }
    const watcher: Watcher = { ...w, lastRv: fromRv };
    if (initial) {
      for (const o of initial) res.write(JSON.stringify({ type: 'ADDED', object: o }) + '\n');
      watcher.lastRv = opts.currentRv;
    } else {
      for (const e of this.history) if (e.rv <= this.deliveredRv) this.deliver(watcher, e);
      watcher.lastRv = Math.max(watcher.lastRv, this.deliveredRv);
    }
    if (opts.initialEventsEnd) this.bookmark(watcher, true);
    this.watchers.add(watcher);
    const every = opts.bookmarks ? setInterval(() => this.bookmark(watcher, false), this.opts.bookmarkIntervalMs).unref() : undefined;
    res.on('close', () => {
      clearInterval(every);
      clearTimeout(watcher.timer);
      this.watchers.delete(watcher);
    });
  }

  /** Ends every open watch stream. */
  closeAll(): void {
    for (const w of this.watchers) {
      clearTimeout(w.timer);
      w.res.end();
    }
    this.watchers.clear();
    clearTimeout(this.timer);
  }

  private bookmark(w: Watcher, initialEventsEnd: boolean): void {
    const metadata = { resourceVersion: String(Math.max(w.lastRv, this.deliveredRv)), ...(initialEventsEnd ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}) };
    this.send(w, JSON.stringify({ type: 'BOOKMARK', object: { kind: w.kind, apiVersion: w.apiVersion, metadata } }) + '\n');
  }

  private ready(p: Pending): void {
    p.readyAt = Date.now() + this.opts.lagMs;
    this.pump();
  }

  /** Delivers events from the head of the queue while they are ready, in resourceVersion order. */
  private pump(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length > 0) {
      const head = this.queue[0]!;
      if (head.readyAt === undefined) return; // its write has not been answered yet
      const wait = head.readyAt - Date.now();
      if (wait > 0) {
        this.timer = setTimeout(() => this.pump(), wait).unref();
        return;
      }
      this.queue.shift();
      this.deliveredRv = head.entry.rv;
      for (const w of this.watchers) this.deliver(w, head.entry);
    }
  }

  /**
   * As the API server's watch cache does it: an object that starts matching the watch's
   * selectors arrives as ADDED, one that stops matching as DELETED (its previous content
   * with the event's resourceVersion).
   */
  private deliver(w: Watcher, e: WatchEntry): void {
    if (w.typeKey !== e.typeKey || e.rv <= w.lastRv) return;
    w.lastRv = e.rv;
    const matches = (o: KubeObject) => (w.namespace === undefined || o.metadata?.namespace === w.namespace) && w.labels(o.metadata?.labels) && w.fields(o);
    const now = e.type !== 'DELETED' && matches(e.object);
    const before = e.type === 'DELETED' ? matches(e.object) : e.previous !== undefined && matches(e.previous);
    let event: { type: WatchEntry['type']; object: KubeObject };
    if (now) event = { type: before ? e.type : 'ADDED', object: e.object };
    else if (before && e.type === 'DELETED') event = { type: 'DELETED', object: e.object };
    else if (before) event = { type: 'DELETED', object: { ...e.previous!, metadata: { ...e.previous!.metadata, resourceVersion: String(e.rv) } } };
    else return;
    this.send(w, JSON.stringify(event) + '\n');
  }

  /** Writes an event line now, or after the watcher's own lag (keeping its order). */
  private send(w: Watcher, line: string): void {
    const lag = w.lagMs?.() ?? 0;
    if (w.res.writableEnded) return;
    if (lag <= 0 && !w.backlog?.length) {
      w.res.write(line);
      return;
    }
    (w.backlog ??= []).push({ due: Date.now() + lag, line });
    if (!w.timer) this.drain(w);
  }

  private drain(w: Watcher): void {
    w.timer = undefined;
    if (w.res.writableEnded) return;
    const backlog = w.backlog ?? [];
    while (backlog.length > 0 && backlog[0]!.due <= Date.now()) w.res.write(backlog.shift()!.line);
    if (backlog.length > 0) w.timer = setTimeout(() => this.drain(w), backlog[0]!.due - Date.now()).unref();
  }
}
