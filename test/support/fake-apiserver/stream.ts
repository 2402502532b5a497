// A raw watch stream on the fake API server, for tests that look at every event it sends.
import type http from 'node:http';
import type { KubeClient } from '../../../kube/client.js';

export interface RawEvent {
  type: string;
  object: any;
}

export interface RawWatch {
  events: RawEvent[];
  /** Resolves with the first event not returned before for which `match` holds, waiting for it to arrive. */
  next(match: (e: RawEvent) => boolean): Promise<RawEvent>;
  close(): void;
}

export async function rawWatch(client: KubeClient, path: string, query: Record<string, string>): Promise<RawWatch> {
  const res: http.IncomingMessage = await client.send({ path, query: { ...query, watch: 'true' }, timeoutMs: 0x7fffffff });
  const events: RawEvent[] = [];
  const waiting: { match: (e: RawEvent) => boolean; resolve: (e: RawEvent) => void }[] = [];
  const returned = new Set<RawEvent>();
  let buffered = '';
  const settle = () => {
    for (const w of [...waiting]) {
      const found = events.find((e) => !returned.has(e) && w.match(e));
      if (!found) continue;
      returned.add(found);
      waiting.splice(waiting.indexOf(w), 1);
      w.resolve(found);
    }
  };
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    buffered += chunk;
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      events.push(JSON.parse(buffered.slice(0, nl)) as RawEvent);
      buffered = buffered.slice(nl + 1);
    }
    settle();
  });
  return {
    events,
    next(match) {
      return new Promise((resolve) => {
        waiting.push({ match, resolve });
        settle();
      });
    },
    close: () => res.destroy(),
  };
}
