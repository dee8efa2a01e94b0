// GET /console/events: the console's live updates as server-sent events, fed by the events outbox
// (plugins/events): what this instance logs (session.state.changed, job.*) and its notices (a job's
// page, a webhook delivery) say which list to send again; session changes made by this instance
// (a label, a login) come from the session service. One timer per open page: the keep-alive, which
// also sends the health figures and looks at the store for what other instances changed (their
// events are in the shared log, not heard here). The page never polls.
import { PassThrough } from 'node:stream';
import type { EventNotice, Services, StreamResult } from '../../engine/types.js';
import { healthOf } from './health.js';
import { listSessions } from './sessions.js';
import { allJobs } from './jobs.js';
import { consoleWebhooks } from './webhooks.js';
import type { Topic } from './changes.js';
import type { ConsoleParts } from './parts.js';

export interface EventTimings {
  /** A burst of changes is sent as one list after this delay. */
  readonly settleMs: number;
  /** The one timer: health, the store's view of other instances' changes, use counts and the keep-alive. */
  readonly tickMs: number;
}

export const TIMINGS: EventTimings = { settleMs: 150, tickMs: 5000 };

type List = 'sessions' | 'jobs' | 'webhooks';

/** Which list an outbox event or notice changes. */
export function listsOf(notice: Pick<EventNotice, 'type'>): readonly List[] {
  if (notice.type.startsWith('session.')) return ['sessions'];
  if (notice.type.startsWith('job.')) return ['jobs'];
  if (notice.type.startsWith('webhook.')) return ['webhooks'];
  return []; // platform events (messages, follows...): their deliveries are told as webhook notices
}

export function consoleEvents(services: Services, parts: ConsoleParts, signal: AbortSignal, timings: EventTimings = TIMINGS): StreamResult {
  const live = new LiveStream(services, parts, timings);
  signal.addEventListener('abort', () => live.stop(), { once: true });
  return {
    kind: 'stream',
    stream: live.stream,
    contentType: 'text/event-stream; charset=utf-8',
    headers: { 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' },
  };
}

/** One open stream: what it last sent, its one timer and its subscriptions, all gone when it closes. */
class LiveStream {
  readonly stream = new PassThrough();
  private settling?: NodeJS.Timeout;
  private readonly due = new Set<List>();
  private readonly sent = new Map<List, string>();
  private readonly tick: NodeJS.Timeout;
  private readonly unsubscribe: (() => void)[];

  constructor(
    private readonly services: Services,
    private readonly parts: ConsoleParts,
    private readonly timings: EventTimings,
  ) {
    this.unsubscribe = [
      services.sessions.subscribe(() => this.soon(['sessions'])),
      parts.changes.listen((topic: Topic) => this.soon([topic])),
      parts.events?.outbox.listen((notice) => this.soon(listsOf(notice))) ?? (() => undefined),
    ];
    this.tick = setInterval(() => this.look(), timings.tickMs);
    this.stream.once('close', () => this.stop());
    // The reconnection delay a browser waits after a drop, then the current state at once.
    this.write('retry: 2000\n\n');
    this.pushHealth();
    for (const list of ['sessions', 'jobs', 'webhooks'] as const) this.push(list);
  }

  stop(): void {
    for (const off of this.unsubscribe) off();
    clearInterval(this.tick);
    if (this.settling) clearTimeout(this.settling);
    this.stream.end();
  }

  private write(text: string): void {
    if (!this.stream.destroyed && !this.stream.writableEnded) this.stream.write(text);
  }

  /** The timer's round: health, every list as the store has it now (sent only if changed), a keep-alive. */
  private look(): void {
    this.pushHealth();
    this.soon(['sessions', 'jobs', 'webhooks']);
    this.write(': keep-alive\n\n');
  }

  /** A burst of changes (a login writes its record more than once; a job's pages) is sent as one list each. */
  private soon(lists: readonly List[]): void {
    for (const list of lists) this.due.add(list);
    if (this.due.size === 0) return;
    this.settling ??= setTimeout(() => {
      this.settling = undefined;
      for (const list of this.due) this.push(list);
      this.due.clear();
    }, this.timings.settleMs);
  }

  private push(list: List): void {
    const read = this.read(list);
    if (!read) return;
    read.then(
      (value) => {
        const text = JSON.stringify(value);
        if (text === this.sent.get(list)) return;
        this.sent.set(list, text);
        this.write(`event: ${list}\ndata: ${text}\n\n`);
      },
      (error) => {
        const detail = `listing ${list} failed: ${error instanceof Error ? error.name : 'error'}`;
        this.write(`event: problem\ndata: ${JSON.stringify({ detail })}\n\n`);
      },
    );
  }

  private read(list: List): Promise<unknown> | undefined {
    if (list === 'sessions') return listSessions(this.services, this.parts);
    if (list === 'jobs') return this.parts.jobs ? allJobs(this.parts.jobs) : undefined;
    return this.parts.events ? consoleWebhooks(this.parts.events.webhooks) : undefined;
  }

  private pushHealth(): void {
    healthOf(this.services).then(
      (health) => this.write(`event: health\ndata: ${JSON.stringify(health)}\n\n`),
      () => undefined,
    );
  }
}
