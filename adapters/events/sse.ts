// GET /events: a session's events as server-sent events. Each event's SSE id is its position in the
// session's retained log, so a client that reconnects with Last-Event-ID gets exactly what it
// missed (within the retention); a new listener starts after the newest. Events written by this
// instance wake the stream at once; those written by another instance are found on the next look
// (every EVENTS_POLL_MS). Keep-alive comments hold idle streams open through proxies.
import { PassThrough } from 'node:stream';
import type { StreamResult, WorkEvent } from '../../engine/types.js';
import type { Outbox } from './outbox.js';

export interface StreamOptions {
  readonly keepAliveMs: number;
  readonly pollMs: number;
  /** Only these event types (empty: all). */
  readonly types: readonly string[];
  /** Called when the stream opens and closes (metrics: listeners). */
  readonly listening?: (delta: 1 | -1) => void;
}

/** The log's end is read before the stream opens: a store that is away answers 503, not an empty stream. */
export async function eventStream(outbox: Outbox, ref: string, start: number | undefined, signal: AbortSignal, options: StreamOptions): Promise<StreamResult> {
  const newest = await outbox.last(ref);
  const after = start ?? newest;
  const stream = new PassThrough();
  const stop = new AbortController();
  const end = () => stop.abort();
  signal.addEventListener('abort', end, { once: true });
  stream.once('close', end);
  options.listening?.(1);
  stop.signal.addEventListener(
    'abort',
    () => {
      options.listening?.(-1);
      if (!stream.writableEnded) stream.end();
    },
    { once: true },
  );
  void pump(outbox, ref, after, stream, stop.signal, options).catch(() => end());
  return { kind: 'stream', stream, contentType: 'text/event-stream; charset=utf-8', headers: { 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' } };
}

async function pump(outbox: Outbox, ref: string, start: number, stream: PassThrough, signal: AbortSignal, options: StreamOptions): Promise<void> {
  const write = (text: string) => !signal.aborted && !stream.writableEnded && stream.write(text);
  // The reconnection delay a client waits after a drop, and an opening comment so headers flush now.
  write('retry: 2000\n: listening\n\n');
  let after = start;
  let idleSince = Date.now();
  while (!signal.aborted) {
    const entries = await outbox.read(ref, after, 100);
    for (const entry of entries) {
      after = entry.seq;
      if (!wanted(entry.value, options.types)) continue;
      write(frame(entry.seq, entry.value));
      idleSince = Date.now();
    }
    if (entries.length === 100) continue;
    if (Date.now() - idleSince >= options.keepAliveMs) {
      write(': keep-alive\n\n');
      idleSince = Date.now();
    }
    await outbox.next(Math.min(options.pollMs, options.keepAliveMs), signal);
  }
}

function wanted(event: WorkEvent, types: readonly string[]): boolean {
  return types.length === 0 || types.some((t) => t === event.type || (t.endsWith('.*') && event.type.startsWith(t.slice(0, -1))));
}

/** One SSE frame: the log position as its id, the type as its event name, the webhook body as data. */
export function frame(seq: number, event: WorkEvent): string {
  const data = JSON.stringify({ id: event.id, type: event.type, timestamp: new Date(event.timestamp).toISOString(), data: event.data });
  return `id: ${seq}\nevent: ${event.type}\ndata: ${data}\n\n`;
}
