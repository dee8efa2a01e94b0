// The events outbox. An event is kept in its session's log (deduplicated by its stable id, so a
// second emit of one event adds nothing) and handed to a fan-out work item that queues one webhook
// delivery per matching endpoint. SSE streams of this instance are woken on each new event; streams
// of other instances find it on their next look at the log (EVENTS_POLL_MS).
import type { EventLog, EventNotice, ListEntry, Logger, WorkEvent, WorkLayer } from '../../engine/types.js';
import { logOf } from './ids.js';

export const FANOUT = 'events.fanout';
/** The fan-out is retried like any work item; its deliveries carry the webhook schedule of their own. */
const FANOUT_RETRIES = { attempts: 10, backoffMs: [1000, 5000, 30_000] };

export interface OutboxOptions {
  readonly retentionMs: number;
  readonly retainCount: number;
  readonly now?: () => number;
  /** Counts each new event by type (metrics): once, by whichever instance kept it first. */
  readonly counted?: (type: string) => void;
}

export class Outbox implements EventLog {
  private readonly waiters = new Set<() => void>();
  private readonly listeners = new Set<(notice: EventNotice) => void>();
  private readonly now: () => number;
  private appends = 0;

  constructor(
    private readonly work: WorkLayer,
    private readonly log: Logger,
    private readonly options: OutboxOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The fan-out is queued before the log is written: a crash between the two leaves the fan-out,
   * which writes the log itself (appending is idempotent), so no event reaches the log without
   * reaching the webhooks.
   */
  async emit(event: WorkEvent): Promise<void> {
    await this.emitNew(event);
  }

  /** Emits; answers whether the log had not kept the event yet (a watcher counts only those). */
  async emitNew(event: WorkEvent): Promise<boolean> {
    await this.work.queue.add(FANOUT, event.id, event, FANOUT_RETRIES);
    return this.keep(event);
  }

  /** Emits without failing the caller: a state change must not fail the request that caused it. */
  emitQuietly(event: WorkEvent): void {
    this.emit(event).catch((error) =>
      this.log.warn('emitting an event failed', { type: event.type, error: error instanceof Error ? error.message : String(error) }),
    );
  }

  /** Writes the event to its session's log; answers whether it was new there. */
  async keep(event: WorkEvent): Promise<boolean> {
    const list = logOf(event.session);
    const added = (await this.work.store.append(list, [{ key: event.id, value: event }])) > 0;
    if (!added) return false;
    this.options.counted?.(event.type);
    this.wake();
    this.tell(event);
    // Trimmed now and then, not on every append: one DELETE per hundred events is plenty.
    if (++this.appends % 100 === 0) await this.work.store.trim(list, this.options.retainCount).catch(() => undefined);
    return true;
  }

  /** A session's events after a log position, within the retention window, oldest first. */
  async read(ref: string | undefined, after: number, limit = 100): Promise<ListEntry<WorkEvent>[]> {
    const oldest = this.now() - this.options.retentionMs;
    const entries = await this.work.store.read<WorkEvent>(logOf(ref), { after, limit });
    return entries.filter((entry) => entry.value.timestamp >= oldest);
  }

  /** The newest position of a session's log: a listener without Last-Event-ID starts after it. */
  last(ref: string | undefined): Promise<number> {
    return this.work.store.last(logOf(ref));
  }

  /** Finds an event by id in a session's log (replay of a delivery). */
  async find(ref: string | undefined, id: string): Promise<WorkEvent | undefined> {
    for (let after = 0; ; ) {
      const page = await this.work.store.read<WorkEvent>(logOf(ref), { after, limit: 500 });
      const found = page.find((entry) => entry.value.id === id);
      if (found) return found.value;
      if (page.length < 500) return undefined;
      after = page[page.length - 1].seq;
    }
  }

  /** Resolves on the next new event in this instance, or after `ms`, or when `signal` aborts. */
  next(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Hears each event this instance logs first and each notice (the console's live stream); answers the function that stops it. */
  listen(listener: (notice: EventNotice) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  notice(type: string, data?: Readonly<Record<string, unknown>>): void {
    this.tell({ type, data });
  }

  private tell(notice: EventNotice): void {
    for (const listener of [...this.listeners]) listener(notice);
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
