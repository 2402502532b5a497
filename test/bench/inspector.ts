// The memory of another Node process as it holds it after a full garbage collection, read
// through its inspector (`node --inspect=127.0.0.1:0`): RSS read right after work holds that
// work's garbage too, and V8 collects it whenever it likes, so two readings of the same
// sessions could differ by more than the sessions themselves.
import { createWriteStream } from 'node:fs';
import { WebSocket } from 'ws';

export interface Memory {
  /** KiB resident before the collection: the sessions and the garbage their set-up left. */
  rssBeforeGcKiB: number;
  /** KiB resident. */
  rssKiB: number;
  /** KiB of live JavaScript objects plus the memory they own outside the heap (buffers, native handles V8 is told of). */
  liveKiB: number;
}

/** The inspector's address from what `node --inspect` printed on stderr, once it has. */
export function inspectorUrl(stderr: string): string | undefined {
  return /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/.exec(stderr)?.[1];
}

export class Inspector {
  private next = 1;
  private readonly pending = new Map<number, (result: Record<string, unknown>) => void>();

  private onChunk: ((chunk: string) => void) | undefined;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: Record<string, unknown>; method?: string; params?: { chunk?: string } };
      if (message.method === 'HeapProfiler.addHeapSnapshotChunk') this.onChunk?.(message.params?.chunk ?? '');
      if (message.id !== undefined) this.pending.get(message.id)?.(message.result ?? {});
    });
  }

  static connect(url: string): Promise<Inspector> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url);
      ws.once('open', () => resolve(new Inspector(ws)));
      ws.once('error', reject);
    });
  }

  private call(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.next++;
    return new Promise((resolve) => {
      this.pending.set(id, (result) => {
        this.pending.delete(id);
        resolve(result);
      });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Memory after a full collection (twice: the first may leave weakly held objects for the second). */
  async memory(): Promise<Memory> {
    const before = await this.usage();
    await this.call('HeapProfiler.collectGarbage');
    await this.call('HeapProfiler.collectGarbage');
    const usage = await this.usage();
    return { rssBeforeGcKiB: before.rss / 1024, rssKiB: usage.rss / 1024, liveKiB: (usage.heapUsed + usage.external) / 1024 };
  }

  /** KiB used in each of V8's heap spaces (old, new, code, large objects, …), read as it is. */
  async heapSpaces(): Promise<Record<string, number>> {
    const expression = "JSON.stringify(process.getBuiltinModule('node:v8').getHeapSpaceStatistics().map((s) => [s.space_name, s.space_used_size, s.space_size]))";
    const { result } = (await this.call('Runtime.evaluate', { expression, returnByValue: true })) as { result: { value: string } };
    return Object.fromEntries((JSON.parse(result.value) as [string, number, number][]).map(([name, used]) => [name.replace(/_space$/, ''), used / 1024]));
  }

  /** Writes a heap snapshot (V8 collects garbage first) to `file`, for DevTools' comparison view. */
  async heapSnapshot(file: string): Promise<void> {
    const out = createWriteStream(file);
    this.onChunk = (chunk) => out.write(chunk);
    try {
      await this.call('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    } finally {
      this.onChunk = undefined;
      await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
    }
  }

  private async usage(): Promise<NodeJS.MemoryUsage> {
    const { result } = (await this.call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as { result: { value: string } };
    return JSON.parse(result.value) as NodeJS.MemoryUsage;
  }

  close(): void {
    this.ws.close();
  }
}
