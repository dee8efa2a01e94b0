// A webhook receiver on loopback for the events tests and bench: every delivery is checked with the
// `standardwebhooks` package (a verifier this project did not write) against the endpoint's secret,
// and recorded by webhook-id. It can be taken down (503, or connections refused) and answer 410.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Delivery {
  readonly id: string;
  readonly type: string;
  readonly data: Record<string, unknown>;
  readonly timestamp: string;
  readonly receivedAt: number;
  readonly signatures: number;
}

export interface Receiver {
  readonly url: string;
  /** Verified deliveries, in order of arrival (retries of one event included). */
  readonly deliveries: Delivery[];
  /** Deliveries whose signature did not verify. */
  readonly rejected: string[];
  /** What arrived while the receiver was answering 503, 410 or 429 (unverified): the event and its text. */
  readonly refused: { readonly id: string; readonly data: Record<string, unknown> }[];
  /** How the next requests are answered: 200, or 503 (down), 410 (gone), or 'refuse' (connections closed at once). */
  mode: 200 | 503 | 410 | 429 | 'refuse';
  retryAfter?: number;
  secret: string;
  /** Another secret that also verifies (during a rotation). */
  also?: string;
  /** Distinct event ids received. */
  ids(): Set<string>;
  waitFor(what: string, test: (deliveries: readonly Delivery[]) => boolean, ms?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const rejected: string[] = [];
  const refused: Receiver['refused'] = [];
  const receiver: Receiver = {
    url: '',
    deliveries,
    rejected,
    refused,
    mode: 200,
    secret: '',
    ids: () => new Set(deliveries.map((d) => d.id)),
    async waitFor(what, test, ms = 15_000) {
      const deadline = Date.now() + ms;
      while (!test(deliveries)) {
        if (Date.now() > deadline)
          throw new Error(`receiver: ${what} did not happen within ${ms} ms (${deliveries.length} deliveries: ${deliveries.map((d) => d.type).join(', ')})`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer(async (req, res) => {
    if (receiver.mode === 'refuse') return void req.socket.destroy();
    const body = await read(req);
    if (receiver.mode !== 200) {
      refused.push({ id: String(req.headers['webhook-id']), data: (JSON.parse(body) as { data: Record<string, unknown> }).data });
      res.writeHead(receiver.mode, receiver.retryAfter !== undefined ? { 'retry-after': String(receiver.retryAfter) } : {}).end();
      return;
    }
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    const verified = [receiver.secret, receiver.also]
      .filter((s): s is string => !!s)
      .some((secret) => {
        try {
          new Webhook(secret).verify(body, headers);
          return true;
        } catch {
          return false;
        }
      });
    if (!verified) {
      rejected.push(headers['webhook-id'] ?? '?');
      res.writeHead(400).end();
      return;
    }
    const parsed = JSON.parse(body) as { type: string; timestamp: string; data: Record<string, unknown> };
    deliveries.push({
      id: headers['webhook-id'],
      type: parsed.type,
      data: parsed.data,
      timestamp: parsed.timestamp,
      receivedAt: Date.now(),
      signatures: headers['webhook-signature'].split(' ').length,
    });
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  (receiver as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}

function read(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Reads an SSE stream into frames until aborted. */
export interface SseFrame {
  readonly id?: string;
  readonly event?: string;
  readonly data?: string;
}

export async function readSse(url: string, headers: Record<string, string>, signal: AbortSignal, frames: SseFrame[], comments?: string[]): Promise<number> {
  const response = await fetch(url, { headers, signal });
  if (!response.ok || !response.body) return response.status;
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const frame: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments?.push(line.slice(1).trim());
            else {
              const at = line.indexOf(':');
              if (at > 0) frame[line.slice(0, at)] = line.slice(at + 1).trim();
            }
          }
          if (frame.data !== undefined) frames.push(frame);
        }
      }
    } catch {
      // aborted
    }
  })();
  return response.status;
}
