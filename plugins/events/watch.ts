// Watchers: one self-rescheduling work item per watched session. Each run checks the session's
// health first (a throttled, challenged or logged-out session pauses without calling the platform
// and is looked at again when the governor allows), then polls the watched sources through the
// session's own lane and governor (the engine's route runner: the same validation, one upstream call
// and shaping as the HTTP route), emits what is new past the watermarks and saves them, and asks to
// run again after the interval with ±20 % jitter. The queue runs each item on one instance at a
// time and hands it over when that instance dies; the watermarks are in the shared work store, so
// a restart neither replays nor skips. Whether a session is watched is decided by its state in the
// work store alone, read fresh by every check (never from a session record another instance may
// have cached before the watch started).
import { hostname } from 'node:os';
import { serviceError } from './errors.js';
import type { BackgroundRoutes, Logger, SessionRecord, SessionService, WorkItem, WorkLayer, WorkOutcome } from '../../engine/types.js';
import { sessionRef } from '../../adapters/events/ids.js';
import type { Outbox } from '../../adapters/events/outbox.js';
import type { EventsSettings } from '../../adapters/events/settings.js';
import { FINDERS, WATCH_KINDS, type Marks, type WatchKind } from '../../adapters/events/sources.js';
import { REACH } from '../../adapters/events/reach.js';
import { isStoreDown } from '../../adapters/store/bounded.js';
import { viewOf, type WatchItemData, type WatchState } from './watch-state.js';
import { jittered, PacedWork, type Pause } from '../../adapters/work/toolkit/index.js';

export const WATCH = 'events.watch';
const BUCKET = 'watches';
/** A run that failed for another reason than the session's health waits this long at least. */
const ERROR_BACKOFF_MS = 60_000;
/** A check that met the store down tries again this soon: the watcher resumes within seconds of its return. */
const STORE_RETRY_MS = 1000;
/** Which instance ran a check: operators see where a watcher runs and that it moved when one died. */
const INSTANCE = `${hostname()}:${process.pid}`;
/** ±20 %: many watchers started together do not beat together. */
const JITTER = 0.2;

export type { WatchState } from './watch-state.js';

export interface WatchersDeps {
  readonly work: WorkLayer;
  readonly sessions: SessionService;
  readonly routes: BackgroundRoutes;
  readonly outbox: Outbox;
  readonly settings: EventsSettings;
  readonly log: Logger;
  readonly now?: () => number;
  readonly checked?: (outcome: string) => void;
  /** A read cut short by a bound (metrics), by kind. */
  readonly truncated?: (kind: WatchKind) => void;
}

/** What the watcher asks of the realtime links (plugins/events/realtime.ts). */
export interface RealtimeLinks {
  /** Keeps (or opens) the session's stream in this instance; answers whether one is up. */
  keep(record: SessionRecord, ref: string, kinds: readonly string[], intervalMs: number): Promise<boolean>;
  drop(ref: string): Promise<void>;
}

export class Watchers {
  private readonly now: () => number;
  /** Health and refusals around each check (adapters/work/toolkit). */
  private readonly paced: PacedWork;

  /** Realtime streams, set by the events module when the upstream has them. */
  links?: RealtimeLinks;

  constructor(private readonly deps: WatchersDeps) {
    this.now = deps.now ?? Date.now;
    this.paced = new PacedWork({ sessions: deps.sessions, routes: deps.routes, now: this.now });
  }

  install(): void {
    this.deps.work.queue.define<WatchItemData>(WATCH, (item) => this.check(item), { concurrency: 16 });
  }

  // -- Requests --

  /** Starts watching (or changes what and how often); the first check runs at once. */
  async start(record: SessionRecord, request: { kinds?: readonly string[]; interval_seconds?: number }): Promise<Record<string, unknown>> {
    const kinds = this.kindsOf(request.kinds);
    const intervalMs = this.intervalOf(request.interval_seconds);
    const ref = sessionRef(record.id);
    const now = this.now();
    // The platform stamps some items in whole seconds: from the start of this second, so an item of
    // the same second as the watch is not lost (the ids keep one that is seen twice from being sent twice).
    const from = Math.floor(now / 1000) * 1000;
    const item: WatchItemData = { session: this.deps.work.store.seal(record.id, ref) };
    const state = await this.deps.work.store.update<WatchState>(BUCKET, ref, (current) => ({
      ref,
      account: record.account,
      kinds: kinds as WatchKind[],
      interval_ms: intervalMs,
      source: current?.source ?? 'poll',
      started_at: current?.started_at ?? now,
      marks: current?.marks ?? Object.fromEntries(WATCH_KINDS.map((k) => [k, from])),
      checks: current?.checks ?? 0,
      emitted: current?.emitted ?? 0,
      next_check_at: now,
      item,
      ...(current?.last_check_at ? { last_check_at: current.last_check_at } : {}),
    }));
    await this.deps.work.queue.add(WATCH, ref, item);
    return viewOf(state!, this.now());
  }

  async stop(record: SessionRecord): Promise<Record<string, unknown>> {
    const ref = sessionRef(record.id);
    const state = await this.deps.work.store.get<WatchState>(BUCKET, ref);
    if (!state) throw serviceError('WatchNotFound', 'This session is not watched');
    await this.forget(ref);
    return { ...viewOf(state, this.now()), watching: false };
  }

  /** Ends a watcher whose session is gone (logged out, revoked). */
  async forget(ref: string): Promise<void> {
    await this.links?.drop(ref);
    await this.deps.work.store.delete(BUCKET, ref);
    await this.deps.work.queue.remove(WATCH, ref);
  }

  /** The watcher's state; a session that is not watched answers so (a state, not an error). */
  async status(record: SessionRecord): Promise<Record<string, unknown>> {
    const ref = sessionRef(record.id);
    const state = await this.deps.work.store.get<WatchState>(BUCKET, ref);
    return state ? viewOf(state, this.now()) : { watching: false, ref };
  }

  /**
   * Queues again the watchers whose item was lost (an instance that died while the store was away
   * could not hand it back): any whose check is well overdue. Adding is idempotent, so a watcher
   * that is merely late is not doubled.
   */
  async requeueOverdue(): Promise<number> {
    const now = this.now();
    let queued = 0;
    for (const state of await this.all()) {
      if (!state.item || state.paused || now - (state.next_check_at ?? now) < 2 * state.interval_ms + 10_000) continue;
      await this.deps.work.queue.add(WATCH, state.ref, state.item);
      queued++;
    }
    return queued;
  }

  /** Every watcher's state (metrics: watched sessions, lag). */
  async all(): Promise<WatchState[]> {
    return (await this.deps.work.store.list<WatchState>(BUCKET)).map((d) => d.value);
  }

  private kindsOf(kinds: readonly string[] | undefined): readonly string[] {
    if (!kinds || kinds.length === 0) return WATCH_KINDS;
    const unknown = kinds.filter((k) => !(WATCH_KINDS as readonly string[]).includes(k));
    if (unknown.length)
      throw serviceError('ValidationError', `kinds: ${unknown.join(', ')} cannot be watched`, {
        errors: [{ param: 'kinds', problem: `one of ${WATCH_KINDS.join(', ')}` }],
      });
    return [...new Set(kinds)];
  }

  private intervalOf(seconds: number | undefined): number {
    const { watchDefaultMs, watchFloorMs } = this.deps.settings;
    if (seconds === undefined) return watchDefaultMs;
    const ms = seconds * 1000;
    if (ms < watchFloorMs)
      throw serviceError('ValidationError', `interval_seconds: at least ${watchFloorMs / 1000} s`, {
        errors: [{ param: 'interval_seconds', problem: `at least ${watchFloorMs / 1000} seconds (tighter polling gets accounts flagged)` }],
      });
    return ms;
  }

  // -- One check --

  /** A store that is away makes the check try again within a second or two, not after the error back-off. */
  private async check(item: WorkItem<WatchItemData>): Promise<WorkOutcome> {
    try {
      return await this.checkOnce(item);
    } catch (error) {
      if (!isStoreDown(error)) throw error;
      this.deps.checked?.('store_unavailable');
      return { delayMs: STORE_RETRY_MS };
    }
  }

  private async checkOnce(item: WorkItem<WatchItemData>): Promise<WorkOutcome> {
    const ref = item.id;
    const state = await this.deps.work.store.get<WatchState>(BUCKET, ref);
    if (!state) return; // stopped: the one place that says whether the session is watched
    const record = await this.deps.sessions.find(this.deps.work.store.open(item.data.session, ref));
    if (!record) return void (await this.forget(ref)); // revoked or logged out
    const now = this.now();
    const ill = this.paced.blocked(record);
    if (ill) {
      await this.links?.drop(ref);
      return this.pause(state, ill);
    }
    const found = await this.collect(state, record, state.kinds, item.signal);
    if ('failed' in found) return this.failed(state, record, found.failed);
    const wait = jittered(state.interval_ms, JITTER);
    const lag = state.next_check_at ? Math.max(0, now - state.next_check_at) : 0;
    const source = (await this.links?.keep(record, ref, state.kinds, state.interval_ms)) ? 'realtime' : 'poll';
    await this.save(ref, (current) => ({
      ...current,
      source,
      checks: current.checks + 1,
      last_check_at: now,
      next_check_at: this.now() + wait,
      lag_ms: lag,
      instance: INSTANCE,
      paused: undefined,
      last_error: undefined,
    }));
    this.deps.checked?.('ok');
    return { delayMs: wait };
  }

  /**
   * A check outside the schedule, of some kinds only: the realtime stream rang (a message came) or
   * was (re)connected (one poll catches up with what it may have missed). Nothing when the session
   * is not watched or not healthy; the scheduled checks go on as before.
   */
  async checkNow(ref: string, record: SessionRecord, kinds: readonly WatchKind[]): Promise<void> {
    const state = await this.deps.work.store.get<WatchState>(BUCKET, ref);
    if (!state || this.paced.blocked(record)) return;
    const found = await this.collect(
      state,
      record,
      kinds.filter((k) => state.kinds.includes(k)),
      AbortSignal.timeout(60_000),
    );
    if ('failed' in found) this.deps.log.warn('a realtime-triggered check failed', { ref, exc_type: this.deps.routes.statusOf(found.failed).excType });
  }

  /** The realtime links tell when a session's stream comes up or goes down. */
  async sourceIs(ref: string, source: 'poll' | 'realtime'): Promise<void> {
    await this.save(ref, (current) => ({ ...current, source }));
  }

  /**
   * Reads each kind back to its watermark, emits what is new past it and saves the marks (each only
   * ever moves forward). `emitted` counts events the log had not kept yet: an item seen again
   * (at the mark, by a second instance, after a reconnect) is not counted twice.
   */
  private async collect(
    state: WatchState,
    record: SessionRecord,
    kinds: readonly WatchKind[],
    signal: AbortSignal,
  ): Promise<{ emitted: number } | { failed: unknown }> {
    const marks: Marks = {};
    let emitted = 0;
    let truncated = 0;
    for (const kind of kinds) {
      const polled = await this.poll(kind, record, state.ref, state.marks[kind] ?? state.started_at, signal).catch((error: unknown) => ({ error }));
      if ('error' in polled) return { failed: polled.error };
      for (const event of polled.events) if (await this.deps.outbox.emitNew(event)) emitted++;
      marks[kind] = polled.mark;
      if (polled.truncated) {
        truncated++;
        this.deps.truncated?.(kind);
        this.deps.log.warn('a watcher check did not read back to its watermark; older items may be missed', { ref: state.ref, kind });
      }
    }
    await this.save(state.ref, (current) => ({
      ...current,
      marks: laterOf(current.marks, marks),
      emitted: current.emitted + emitted,
      ...(truncated ? { truncated: (current.truncated ?? 0) + truncated } : {}),
    }));
    return { emitted };
  }

  private async poll(kind: WatchKind, record: SessionRecord, ref: string, mark: number, signal: AbortSignal) {
    const { routes, settings } = this.deps;
    const run = async (key: string, params: Readonly<Record<string, string>>) => {
      const route = routes.route(key);
      if (!route) throw new Error(`watch source ${key} is not in the manifest`);
      return routes.run(route, routes.input(route, params), record, signal);
    };
    const reached = await REACH[kind](run, mark, { pages: settings.watchPages, threadMessages: settings.watchThreadMessages });
    return { ...FINDERS[kind](reached.result, record.account, ref, mark), truncated: reached.truncated };
  }

  /** Throttled: look again when the governor allows; challenge or logged out: after the interval. */
  private async pause(state: WatchState, pause: Pause): Promise<WorkOutcome> {
    const at = pause.until ?? this.now() + state.interval_ms;
    const paused = { reason: pause.reason, until: at, ...(pause.exc_type ? { exc_type: pause.exc_type } : {}) };
    await this.save(state.ref, (current) => ({ ...current, paused, next_check_at: at }));
    this.deps.checked?.('paused');
    return { retryAt: at };
  }

  /** A throttle, a challenge or a refusal with Retry-After met mid-check pauses; anything else is noted and retried after a while. */
  private async failed(state: WatchState, record: SessionRecord, error: unknown): Promise<WorkOutcome> {
    const pause = await this.paced.troubleOf(record, error);
    if (pause) return this.pause(state, pause);
    const { excType } = this.deps.routes.statusOf(error);
    const wait = Math.max(ERROR_BACKOFF_MS, state.interval_ms);
    await this.save(state.ref, (current) => ({ ...current, last_error: { exc_type: excType, at: this.now() }, next_check_at: this.now() + wait }));
    this.deps.log.warn('a watcher check failed', { ref: state.ref, exc_type: excType });
    this.deps.checked?.('error');
    return { delayMs: wait };
  }

  private async save(ref: string, change: (current: WatchState) => WatchState): Promise<void> {
    await this.deps.work.store.update<WatchState>(BUCKET, ref, (current) => current && change(current));
  }
}

/** Each watermark at the later of the two: a slower check that saves after a faster one never moves one back. */
function laterOf(current: Marks, found: Marks): Marks {
  const out: Marks = { ...current };
  for (const [kind, mark] of Object.entries(found) as [WatchKind, number][]) out[kind] = Math.max(out[kind] ?? 0, mark);
  return out;
}
