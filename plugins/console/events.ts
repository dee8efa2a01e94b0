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
import { eventsOf } from '../events/index.js';
import { consoleWebhooks } from './webhooks.js';
import { onConsoleChange, type Topic } from './changes.js';

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
/** Webhook endpoints and their newest deliveries are re-read this often, and sent when they changed. */
const WEBHOOKS_EVERY_MS = 1000;
/** The session list is read from the store this often too, for changes made by other instances; sent when it changed. */
const STORE_LOOK_EVERY_MS = 10_000;

const UNDER_WAY = new Set(['queued', 'running', 'paused']);

export function consoleEvents(services: Services, signal: AbortSignal, timings: EventTimings = TIMINGS): StreamResult {
  const live = new LiveStream(services, timings);
  signal.addEventListener('abort', () => live.stop(), { once: true });
  return { kind: 'stream', stream: live.stream, contentType: 'text/event-stream; charset=utf-8', headers: { 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' } };
}

/** One open stream: what it last sent, its timers, and its subscriptions, all gone when it closes. */
class LiveStream {
  readonly stream = new PassThrough();
  private usageSeen: number;
  private pending?: NodeJS.Timeout;
  private jobsSent = '';
  private sessionsSent = '';
  private webhooksSent = '';
  private jobsActive = true;
  private jobTicks = 0;
  private readonly timers: NodeJS.Timeout[];
  private readonly unsubscribe: () => void;
  private readonly unheard: () => void;
  private readonly told = (topic: Topic) => (topic === 'jobs' ? this.jobsNow() : this.sessionsSoon());
  private readonly settleMs: number;

  constructor(private readonly services: Services, timings: EventTimings) {
    this.settleMs = timings.settleMs;
    this.usageSeen = services.usage.version;
    this.unsubscribe = services.sessions.subscribe(() => this.sessionsSoon());
    this.unheard = onConsoleChange(services, this.told);
    this.timers = [
      setInterval(() => services.usage.version !== this.usageSeen && this.sessionsSoon(), timings.usageEveryMs),
      setInterval(() => this.pushHealth(), timings.healthEveryMs),
      setInterval(() => this.pushJobs(), timings.jobsEveryMs),
      setInterval(() => this.pushWebhooks(), WEBHOOKS_EVERY_MS),
      // What other instances sharing the store changed (a login, a revocation) is read from the store.
      setInterval(() => this.sessionsSoon(), STORE_LOOK_EVERY_MS),
      setInterval(() => this.write(': keep-alive\n\n'), timings.keepAliveMs),
    ];
    this.stream.once('close', () => this.stop());
    // The reconnection delay a browser waits after a drop, then the current state at once.
    this.write('retry: 2000\n\n');
    this.pushSessions();
    this.pushHealth();
    this.pushJobs();
    this.pushWebhooks();
  }

  stop(): void {
    this.unsubscribe();
    this.unheard();
    for (const timer of this.timers) clearInterval(timer);
    if (this.pending) clearTimeout(this.pending);
    this.stream.end();
  }

  private write(text: string): void {
    if (!this.stream.destroyed && !this.stream.writableEnded) this.stream.write(text);
  }

  private send(event: string, data: unknown): void {
    this.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  /** A burst of changes (a login writes its record more than once) is sent as one list. */
  private sessionsSoon(): void {
    this.pending ??= setTimeout(() => this.pushSessions(), this.settleMs);
  }

  private pushSessions(): void {
    this.pending = undefined;
    this.usageSeen = this.services.usage.version;
    listSessions(this.services).then(
      (list) => {
        const text = JSON.stringify(list);
        if (text === this.sessionsSent) return;
        this.sessionsSent = text;
        this.send('sessions', list);
      },
      (error) => this.send('problem', { detail: `listing sessions failed: ${error instanceof Error ? error.name : 'error'}` }),
    );
  }

  private pushHealth(): void {
    healthOf(this.services).then((health) => this.send('health', health), () => undefined);
  }

  private jobsNow(): void {
    this.jobsActive = true;
    this.pushJobs();
  }

  /** Endpoints with their newest deliveries, sent when something changed (a delivery, a rotation). */
  private pushWebhooks(): void {
    if (!eventsOf(this.services)) return;
    consoleWebhooks(this.services).then((list) => {
      const text = JSON.stringify(list);
      if (text === this.webhooksSent) return;
      this.webhooksSent = text;
      this.write(`event: webhooks\ndata: ${text}\n\n`);
    }, () => undefined);
  }

  /** Sent when they changed: a bar moves while its job runs; nothing is re-sent while none does. */
  private pushJobs(): void {
    if (!jobsOf(this.services) || (!this.jobsActive && this.jobTicks++ % 5 !== 0)) return;
    allJobs(this.services).then((list) => {
      this.jobsActive = list.jobs.some((job) => UNDER_WAY.has(String(job.state)));
      const text = JSON.stringify(list.jobs.map(({ rate: _r, eta_seconds: _e, elapsed_seconds: _s, ...stable }) => stable));
      if (text === this.jobsSent && !this.jobsActive) return;
      this.jobsSent = text;
      this.send('jobs', list);
    }, () => undefined);
  }
}
