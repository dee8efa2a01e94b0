// A job's stored record, the events it emits, and what status answers show of it.
import type { EventTypeRow, Owner } from '../../engine/types.js';
import type { Pause } from '../../adapters/work/toolkit/index.js';
import type { IteratorRun } from './iterate.js';

export type JobState = 'queued' | 'running' | 'paused' | 'done' | 'failed' | 'cancelled';

export interface JobRecord {
  readonly id: string;
  readonly route: string;
  /** The parameters as given (raw values, re-checked by the route's validator on every page). */
  readonly params: Readonly<Record<string, unknown>>;
  readonly limit: number;
  /** The session's id, sealed (a session id grants the account); absent for a pool job. */
  readonly session?: string;
  readonly account?: { readonly pk: string; readonly username: string };
  /** The session's ref (engine/session-record.ts), as the console and events name it: which of an account's sessions runs the job. */
  readonly session_ref?: string;
  readonly pool?: string;
  /** Who started it (absent on jobs started before owners were kept: then its account's). */
  readonly owner?: Owner;
  readonly state: JobState;
  readonly paused?: Pause;
  readonly error?: { readonly exc_type: string; readonly detail: string };
  readonly items: number;
  readonly pages: number;
  readonly cursor: string;
  /** Pages in a row that brought no new item. */
  readonly stale: number;
  /** How its pages are read: the library's async iterator, or the chunk method (./iterate.ts); absent before either. */
  readonly paging?: 'iterator' | 'chunks';
  /** Items read again through the chunk method after an iterator was lost: their pages are not stale. */
  readonly replay?: number;
  readonly created_at: number;
  readonly started_at?: number;
  readonly updated_at: number;
  readonly finished_at?: number;
}

/** The events a job emits, and what each means (GET /events/types; the jobs module declares these rows). */
const JOB_EVENT_MEANS = {
  'job.paused': 'A job paused (throttle, challenge, logged out) with the reason and until when.',
  'job.completed': 'A job collected everything (or its limit).',
  'job.failed': 'A job failed after its retries, with the error.',
} as const;
export type JobEventType = keyof typeof JOB_EVENT_MEANS;
export const JOB_EVENT_TYPES: readonly EventTypeRow[] = Object.entries(JOB_EVENT_MEANS).map(([type, describe]) => ({ type, describe }));

export const TERMINAL = new Set<JobState>(['done', 'failed', 'cancelled']);

export const listOf = (jobId: string): string => `job:${jobId}`;

/**
 * How a page was read and what it leaves: through the iterator (spent or not), or through the chunk
 * method, re-reading (`replaying`) what the job held when its iterator was lost.
 */
export function pagingOf(
  job: JobRecord,
  read: number,
  iterating: IteratorRun | undefined,
): { paging: 'iterator' | 'chunks'; done: boolean; replaying: boolean; replay?: number } {
  const outcome = iterating?.outcome();
  if (outcome && !outcome.gone) return { paging: 'iterator', done: outcome.done, replaying: false };
  const lost = job.paging === 'iterator'; // this page is the chunk method's first: the iterator left no cursor
  const before = lost ? job.items : (job.replay ?? 0);
  const left = Math.max(0, before - read);
  return { paging: 'chunks', done: false, replaying: before > 0, ...(left > 0 ? { replay: left } : {}) };
}

/** A job's owner; one started before owners were kept belongs to its account. */
export const jobOwner = (job: JobRecord): Owner => job.owner ?? (job.account ? { account: job.account.pk } : {});

/** What status answers show: the record with its rate and estimate of the time left. */
export function jobView(job: JobRecord, now = Date.now()): Record<string, unknown> {
  const { session: _sealed, stale: _stale, owner: _owner, ...shown } = job;
  const seconds = ((job.finished_at ?? now) - (job.started_at ?? now)) / 1000;
  const rate = seconds > 0 ? job.items / seconds : 0;
  const left = job.limit > 0 && rate > 0 && !TERMINAL.has(job.state) ? Math.ceil((job.limit - job.items) / rate) : null;
  return { ...shown, rate: Math.round(rate * 100) / 100, eta_seconds: left, elapsed_seconds: Math.round(Math.max(0, seconds)) };
}
