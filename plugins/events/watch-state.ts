// A watcher's state as the work store keeps it (by session ref: the one place that says whether a
// session is watched, with its watermarks) and as GET /events/watch shows it.
import type { Marks, WatchKind } from '../../adapters/events/sources.js';

export interface WatchItemData {
  /** The session id, sealed with the ref as context: the queue never holds a usable credential. */
  readonly session: string;
}

/** The watcher's state, in the work store by session ref: what GET /events/watch shows, and the watermarks. */
export interface WatchState {
  readonly ref: string;
  readonly account: { readonly pk: string; readonly username: string };
  readonly kinds: readonly WatchKind[];
  readonly interval_ms: number;
  readonly source: 'poll' | 'realtime';
  readonly started_at: number;
  readonly marks: Marks;
  readonly checks: number;
  readonly emitted: number;
  readonly last_check_at?: number;
  readonly next_check_at?: number;
  /** How late the last check ran against its schedule. */
  readonly lag_ms?: number;
  readonly paused?: { readonly reason: string; readonly until?: number; readonly exc_type?: string };
  readonly last_error?: { readonly exc_type: string; readonly at: number };
  /** The instance (host:pid) that ran the last check. */
  readonly instance?: string;
  /** The work item's data (the sealed session id): a watcher whose item was lost is queued again from it. */
  readonly item?: WatchItemData;
  /** Checks whose read back to the watermark was cut short by WATCH_PAGES or WATCH_THREAD_MESSAGES. */
  readonly truncated?: number;
}

/** GET /events/watch: the state with times as ISO strings. */
export function viewOf(state: WatchState, now: number): Record<string, unknown> {
  return {
    watching: true,
    ref: state.ref,
    account: state.account,
    kinds: state.kinds,
    interval_seconds: state.interval_ms / 1000,
    source: state.source,
    started_at: iso(state.started_at),
    last_check_at: iso(state.last_check_at),
    next_check_at: iso(state.next_check_at),
    lag_seconds: state.lag_ms === undefined ? null : Math.round(state.lag_ms) / 1000,
    paused: state.paused ? pausedView(state.paused) : null,
    checks: state.checks,
    emitted: state.emitted,
    truncated: state.truncated ?? 0,
    instance: state.instance ?? null,
    last_error: state.last_error ? { exc_type: state.last_error.exc_type, at: iso(state.last_error.at) } : null,
    overdue: state.next_check_at !== undefined && !state.paused && now - state.next_check_at > state.interval_ms,
  };
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

function pausedView(paused: NonNullable<WatchState['paused']>): Record<string, unknown> {
  return { reason: paused.reason, until: iso(paused.until), ...(paused.exc_type ? { exc_type: paused.exc_type } : {}) };
}
