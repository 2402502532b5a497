// A pods/portforward client for one TCP connection over the channel websocket
// (v4.channel.k8s.io, recorded in portforward-v4-http.jsonl): channel 0 carries data,
// channel 1 errors; the API server opens each with a frame holding the port as two
// little-endian bytes, which is not data. The protocol cannot half-close: the tunnel
// lives until either side closes it.
import type { Duplex } from 'node:stream';
import type { KubeClient } from '../kube/client.js';
import { FrameSender, OutputGate } from '../kube/channel-ws.js';
import type { ExecTarget } from '../kube/exec.js';

export const PORTFORWARD_PROTOCOLS = ['v4.channel.k8s.io'] as const;
export const FORWARD_CHANNEL = { data: 0, error: 1 } as const;

/** The destinations a direct-tcpip channel may name (SPEC 1.5 step 7). */
export const LOCAL_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '::1']);

export function isLocalDestination(host: string): boolean {
  return LOCAL_HOSTS.has(host.toLowerCase());
}

export function portForwardPath(target: Pick<ExecTarget, 'namespace' | 'pod'>): string {
  return `/api/v1/namespaces/${encodeURIComponent(target.namespace)}/pods/${encodeURIComponent(target.pod)}/portforward`;
}

export interface ForwardEnd {
  /** The pod side reported an error (nothing listens on the port, say). */
  error?: string;
}

/** An open tunnel to one port of the pod, not yet connected to a stream. */
export interface PortTunnel {
  /** Connects the tunnel to `stream` (the SSH channel); settles when the tunnel closes. */
  attach(stream: Duplex): Promise<ForwardEnd>;
  close(): void;
}

/** Opens the tunnel; rejects with the API server's Status when the upgrade is refused. */
export async function openPortForward(client: KubeClient, target: Pick<ExecTarget, 'namespace' | 'pod'>, port: number): Promise<PortTunnel> {
  const path = portForwardPath(target);
  const { ws, onMessage } = await client.openStream(path, new URLSearchParams({ ports: String(port) }), [...PORTFORWARD_PROTOCOLS]);

  const sender = new FrameSender(ws);
  const gate = new OutputGate(ws);
  const seenPortPrefix = new Set<number>();
  const errors: string[] = [];
  let stream: Duplex | undefined;
  // Data the pod sends before the SSH channel is attached (a server greeting, say).
  const early: Buffer[] = [];

  onMessage((buf) => {
    if (buf.length === 0) return;
    const channel = buf[0]!;
    let payload = buf.subarray(1);
    if (!seenPortPrefix.has(channel)) {
      seenPortPrefix.add(channel);
      payload = payload.subarray(2);
    }
    if (channel === FORWARD_CHANNEL.data && payload.length) {
      if (stream) gate.write(stream, payload);
      else early.push(payload);
    } else if (channel === FORWARD_CHANNEL.error && payload.length) {
      errors.push(payload.toString('utf8').slice(0, 2048));
    }
  });

  let transportError: Error | undefined;
  ws.on('error', (err) => {
    transportError = err;
  });
  const closed = new Promise<ForwardEnd>((resolve) => {
    ws.once('close', () => {
      const error = errors.join('; ') || transportError?.message;
      resolve(error ? { error } : {});
    });
  });

  const close = () => {
    if (ws.readyState === ws.CLOSED || ws.readyState === ws.CLOSING) return;
    ws.close(1000);
    const timer = setTimeout(() => ws.terminate(), 5_000);
    timer.unref();
    void closed.then(() => clearTimeout(timer));
  };

  return {
    close,
    attach(s: Duplex) {
      stream = s;
      for (const chunk of early.splice(0)) gate.write(s, chunk);
      const onData = (chunk: Buffer) => sender.send(FORWARD_CHANNEL.data, chunk, s);
      s.on('data', onData);
      return closed.then((end) => {
        s.off('data', onData);
        return end;
      });
    },
  };
}
