// The console's view of sessions: every record of the store as the operator may see it (no id, no
// setting, no cookie, the proxy's host only), named by a ref, a one-way digest of the id, so the
// page never holds a credential; and finding a record again by its ref. Beside the record's own
// fields, a row carries the panels other modules declare (their session views: the policy's budgets
// and frozen classes, the events module's watcher), read for many records at once.
import { serviceError } from './errors.js';
import { effectiveState, proxyHost, sessionRef } from '../../engine/session-record.js';

export { proxyHost };
import type { BoundSessionView, JsonValue, Services, SessionRecord } from '../../engine/types.js';
import type { ConsoleParts } from './parts.js';
import { poolsByAccount } from './pools.js';

/** A console listing reads (and decrypts) every record: past this many it stops and says so. */
export const LIST_LIMIT = 2000;

export interface ConsoleSession {
  readonly ref: string;
  readonly account: { readonly pk: string; readonly username: string };
  /** The state now (engine/session-record.ts effectiveState): an ended throttle reads active. */
  readonly state: SessionRecord['state'];
  readonly label: string | null;
  readonly throttled_until: string | null;
  readonly created_at: string;
  readonly last_used_at: string;
  readonly proxy_host: string | null;
  readonly locale: string | null;
  readonly usage: Record<string, { requests: number; errors: number }>;
  /** The pools the session's account is a member of. */
  readonly pools: readonly string[];
  /** The modules' session views (budgets, frozen_classes, watch...), each its view's `empty` for a record it says nothing of. */
  readonly [panel: string]: unknown;
}

/** The session's ref (engine/sessions.ts): the console, events and webhooks name a session alike. */
export const refOf = sessionRef;

/** A row of the list: the record's own fields, then each module's panel. */
export function viewOf(
  record: SessionRecord,
  services: Services,
  now = Date.now(),
  pools: ReadonlyMap<string, readonly string[]> = new Map(),
  panels: Readonly<Record<string, JsonValue>> = {},
): ConsoleSession {
  const throttled = record.throttledUntil !== undefined && record.throttledUntil > now;
  return {
    ref: refOf(record.id),
    account: { pk: record.account.pk, username: record.account.username },
    state: effectiveState(record, now),
    label: record.label ?? null,
    throttled_until: throttled ? new Date(record.throttledUntil!).toISOString() : null,
    created_at: new Date(record.createdAt).toISOString(),
    last_used_at: new Date(record.lastUsedAt).toISOString(),
    proxy_host: proxyHost(record.proxy),
    locale: record.locale ?? null,
    usage: services.usage.of(record.id),
    pools: pools.get(record.account.pk) ?? [],
    ...panels,
  };
}

/** The rows of these records, with every module's panels (one read of each view for all of them). */
export async function viewsOf(records: readonly SessionRecord[], services: Services, parts: ConsoleParts): Promise<ConsoleSession[]> {
  const now = Date.now();
  const [pools, ...panels] = await Promise.all([poolsByAccount(parts.jobs), ...parts.views.map((view) => panelsOf(view, records, now))]);
  return records.map((record) =>
    viewOf(record, services, now, pools, Object.fromEntries(parts.views.map((view, v) => [view.name, panels[v].get(record.id) ?? view.empty]))),
  );
}

/** One record's row, as the list shows it. */
export async function oneView(record: SessionRecord, services: Services, parts: ConsoleParts): Promise<ConsoleSession> {
  return (await viewsOf([record], services, parts))[0];
}

/** A view that cannot be read (the policy's counters are down) shows its empty panel, not a failed list. */
function panelsOf(view: BoundSessionView, records: readonly SessionRecord[], now: number): Promise<ReadonlyMap<string, JsonValue>> {
  return view.read(records, now).catch(() => new Map<string, JsonValue>());
}

export async function listSessions(services: Services, parts: ConsoleParts): Promise<{ sessions: ConsoleSession[]; truncated: boolean }> {
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
  return { sessions: await viewsOf(records, services, parts), truncated };
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
