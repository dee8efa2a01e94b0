// GET /console/events: the console's live updates as server-sent events. A session change made
// by this instance (login, state, throttle, revocation) is pushed within a moment; growing use
// counts at most every few seconds; health every ten. The page never polls.
import { PassThrough } from 'node:stream';
import type { Services, StreamResult } from '../../engine/types.js';
import { healthOf } from './health.js';
import { listSessions } from './sessions.js';

export interface EventTimings {
  /** A burst of changes is sent as one list after this delay. */
  readonly settleMs: number;
  readonly usageEveryMs: number;
  readonly healthEveryMs: number;
  readonly keepAliveMs: number;
}

export const TIMINGS: EventTimings = { settleMs: 150, usageEveryMs: 3000, healthEveryMs: 10_000, keepAliveMs: 15_000 };

export function consoleEvents(services: Services, signal: AbortSignal, timings: EventTimings = TIMINGS): StreamResult {
  const stream = new PassThrough();
  const send = (event: string, data: unknown) => {
    if (!stream.destroyed) stream.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  };
  let usageSeen = services.usage.version;
  let pending: NodeJS.Timeout | undefined;
  const pushSessions = () => {
    pending = undefined;
    usageSeen = services.usage.version;
    listSessions(services).then((list) => send('sessions', list), (error) => send('problem', { detail: `listing sessions failed: ${error instanceof Error ? error.name : 'error'}` }));
  };
  const pushHealth = () => healthOf(services).then((health) => send('health', health), () => undefined);
  const soon = () => void (pending ??= setTimeout(pushSessions, timings.settleMs));
  const unsubscribe = services.sessions.subscribe(soon);
  const timers = [
    setInterval(() => services.usage.version !== usageSeen && soon(), timings.usageEveryMs),
    setInterval(pushHealth, timings.healthEveryMs),
    setInterval(() => !stream.destroyed && stream.write(': keep-alive\n\n'), timings.keepAliveMs),
  ];
  const stop = () => {
    unsubscribe();
    for (const timer of timers) clearInterval(timer);
    if (pending) clearTimeout(pending);
    stream.end();
  };
  signal.addEventListener('abort', stop, { once: true });
  stream.once('close', stop);
  // The reconnection delay a browser waits after a drop, then the current state at once.
  stream.write('retry: 2000\n\n');
  pushSessions();
  void pushHealth();
  return { kind: 'stream', stream, contentType: 'text/event-stream; charset=utf-8', headers: { 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' } };
}
