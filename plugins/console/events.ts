// GET /console/events: the console's live updates as server-sent events. A session change made
// by this instance (login, state, throttle, revocation) is pushed within a moment; growing use
// counts at most every few seconds; jobs twice a second while one is under way; health every ten.
// The page never polls.
import { PassThrough } from 'node:stream';
import type { Services, StreamResult } from '../../engine/types.js';
import { healthOf } from './health.js';
import { listSessions } from './sessions.js';
import { allJobs } from './jobs.js';
import { jobsOf } from '../jobs/index.js';

export interface EventTimings {
  /** A burst of changes is sent as one list after this delay. */
  readonly settleMs: number;
  readonly usageEveryMs: number;
  readonly healthEveryMs: number;
  readonly keepAliveMs: number;
  /** Jobs are re-read this often while one is under way (their bars move), five times slower otherwise. */
  readonly jobsEveryMs: number;
}

export const TIMINGS: EventTimings = { settleMs: 150, usageEveryMs: 3000, healthEveryMs: 10_000, keepAliveMs: 15_000, jobsEveryMs: 500 };

const UNDER_WAY = new Set(['queued', 'running', 'paused']);

type Topic = 'sessions' | 'jobs';
/** Open streams per app, told when a console action changed what they show beyond session records (pools, a new job). */
const streams = new WeakMap<Services, Set<(topic: Topic) => void>>();

export function consoleChanged(services: Services, topic: Topic): void {
  for (const push of streams.get(services) ?? []) push(topic);
}

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
  // Sent when they changed: a bar moves while its job runs, nothing is sent while none does.
  let jobsSent = '';
  let jobsActive = true;
  let jobTicks = 0;
  const pushJobs = () => {
    if (!jobsOf(services) || (!jobsActive && jobTicks++ % 5 !== 0)) return;
    allJobs(services).then((list) => {
      jobsActive = list.jobs.some((job) => UNDER_WAY.has(String(job.state)));
      const text = JSON.stringify(list.jobs.map(({ rate: _r, eta_seconds: _e, elapsed_seconds: _s, ...stable }) => stable));
      if (text === jobsSent && !jobsActive) return;
      jobsSent = text;
      send('jobs', list);
    }, () => undefined);
  };
  const unsubscribe = services.sessions.subscribe(soon);
  const open = streams.get(services) ?? streams.set(services, new Set()).get(services)!;
  const told = (topic: Topic) => (topic === 'jobs' ? ((jobsActive = true), pushJobs()) : soon());
  open.add(told);
  const timers = [
    setInterval(() => services.usage.version !== usageSeen && soon(), timings.usageEveryMs),
    setInterval(pushHealth, timings.healthEveryMs),
    setInterval(pushJobs, timings.jobsEveryMs),
    setInterval(() => !stream.destroyed && stream.write(': keep-alive\n\n'), timings.keepAliveMs),
  ];
  const stop = () => {
    unsubscribe();
    open.delete(told);
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
  pushJobs();
  return { kind: 'stream', stream, contentType: 'text/event-stream; charset=utf-8', headers: { 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' } };
}
