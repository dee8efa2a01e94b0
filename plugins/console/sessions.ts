// The console's view of sessions: every record of the store as the operator may see it (no id, no
// setting, no cookie, the proxy's host only), named by a ref, a one-way digest of the id, so the
// page never holds a credential; and finding a record again by its ref.
import { serviceError } from './errors.js';
import { effectiveState, proxyHost, sessionRef } from '../../engine/session-record.js';

export { proxyHost };
import type { Services, SessionRecord } from '../../engine/types.js';
import { poolsByAccount } from './pools.js';
import { eventsOf } from '../events/index.js';
import type { WatchState } from '../events/watch.js';

/** A console listing reads (and decrypts) every record: past this many it stops and says so. */
export const LIST_LIMIT = 2000;

export interface ConsoleSession {
  readonly ref: string;
  readonly account: { readonly pk: string; readonly username: string };
  /** The state now (engine/session-record.ts effectiveState): an ended throttle reads active. */
  readonly state: SessionRecord['state'];
  readonly label: string | null;
  /** Action classes frozen for the session (frozenClassesFrom); empty without a policy. */
  readonly frozen_classes: readonly string[];
  readonly throttled_until: string | null;
  readonly created_at: string;
  readonly last_used_at: string;
  readonly proxy_host: string | null;
  readonly locale: string | null;
  readonly usage: Record<string, { requests: number; errors: number }>;
  /** The pools the session's account is a member of. */
  readonly pools: readonly string[];
  /** The session's watcher (events), or null when it is not watched. */
  readonly watch: ConsoleWatch | null;
  /** The account-safety policy's budgets used today and the activity window (budgetsFrom); null without a policy. */
  readonly budgets: ConsoleBudgets | null;
}

export interface ConsoleBudgets {
  /** "HH:MM-HH:MM" in the session's timezone, or null when it has none. */
  readonly window: string | null;
  /** Per action class with a limit today: "used/limit" in the current UTC day. */
  readonly today: Readonly<Record<string, string>>;
}

/** What the account-safety policy tells the console of many sessions at once (one batched read of its counters). */
export type BudgetSummaries = (records: readonly SessionRecord[]) => Promise<ReadonlyMap<string, ConsoleBudgets>>;
const budgetsBy = new WeakMap<Services, BudgetSummaries>();

/** The policy module registers how the console reads budgets; without one, sessions show none. */
export function budgetsFrom(services: Services, summaries: BudgetSummaries): void {
  budgetsBy.set(services, summaries);
}

export interface ConsoleWatch {
  readonly source: string;
  readonly interval_seconds: number;
  readonly paused: string | null;
  readonly last_check_at: string | null;
  readonly emitted: number;
}

/** What says which action classes are frozen for a session: the account-safety policy registers one (frozenClassesFrom). */
export type FrozenClasses = (record: SessionRecord, now: number) => readonly string[];
const frozenBy = new WeakMap<Services, FrozenClasses>();

/** A later policy module tells the console which of a session's action classes it has frozen; without one, none are. */
export function frozenClassesFrom(services: Services, frozen: FrozenClasses): void {
  frozenBy.set(services, frozen);
}

/** The watchers' states by session ref, when this app runs events. */
export async function watchesByRef(services: Services): Promise<ReadonlyMap<string, WatchState>> {
  const watchers = eventsOf(services)?.watchers;
  return new Map((watchers ? await watchers.all() : []).map((state) => [state.ref, state]));
}

/** From the watcher's state in the work store: the one place that says whether a session is watched. */
function watchOf(state: WatchState | undefined): ConsoleWatch | null {
  if (!state) return null;
  return {
    source: state.source,
    interval_seconds: state.interval_ms / 1000,
    paused: state.paused?.reason ?? null,
    last_check_at: state.last_check_at ? new Date(state.last_check_at).toISOString() : null,
    emitted: state.emitted,
  };
}

/** The session's ref (engine/sessions.ts): the console, events and webhooks name a session alike. */
export const refOf = sessionRef;

export function viewOf(
  record: SessionRecord,
  services: Services,
  now = Date.now(),
  pools: ReadonlyMap<string, readonly string[]> = new Map(),
  watches: ReadonlyMap<string, WatchState> = new Map(),
  budgets: ReadonlyMap<string, ConsoleBudgets> = new Map(),
): ConsoleSession {
  const throttled = record.throttledUntil !== undefined && record.throttledUntil > now;
  return {
    ref: refOf(record.id),
    account: { pk: record.account.pk, username: record.account.username },
    state: effectiveState(record, now),
    label: record.label ?? null,
    frozen_classes: frozenBy.get(services)?.(record, now) ?? [],
    throttled_until: throttled ? new Date(record.throttledUntil!).toISOString() : null,
    created_at: new Date(record.createdAt).toISOString(),
    last_used_at: new Date(record.lastUsedAt).toISOString(),
    proxy_host: proxyHost(record.proxy),
    locale: record.locale ?? null,
    usage: services.usage.of(record.id),
    pools: pools.get(record.account.pk) ?? [],
    watch: watchOf(watches.get(refOf(record.id))),
    budgets: budgets.get(record.id) ?? null,
  };
}

export async function listSessions(services: Services): Promise<{ sessions: ConsoleSession[]; truncated: boolean }> {
  const records: SessionRecord[] = [];
  let truncated = false;
  for await (const record of services.store.list()) {
    if (records.length === LIST_LIMIT) {
      truncated = true;
      break;
    }
    records.push(record);
  }
  records.sort((a, b) => b.lastUsedAt - a.lastUsedAt);
  const now = Date.now();
  const budgets =
    budgetsBy
      .get(services)?.(records)
      .catch(() => new Map<string, ConsoleBudgets>()) ?? new Map<string, ConsoleBudgets>();
  const [pools, watches, used] = await Promise.all([poolsByAccount(services), watchesByRef(services), budgets]);
  return { sessions: records.map((record) => viewOf(record, services, now, pools, watches, used)), truncated };
}

/** The record a ref names, read through the session service (so its cache sees what follows). */
export async function recordOf(ref: string, services: Services): Promise<SessionRecord> {
  let read = 0;
  // The same records a listing shows, no more: a store is never walked past LIST_LIMIT.
  for await (const record of services.store.list()) {
    if (refOf(record.id) === ref) return (await services.sessions.find(record.id)) ?? record;
    if (++read === LIST_LIMIT) break;
  }
  throw serviceError('ConsoleSessionNotFound', 'No session has this ref');
}
