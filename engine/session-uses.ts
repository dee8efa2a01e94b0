// The write-behind of session uses: a call that is due to record its use (at most once a minute
// per session, or when it brought the session back to active) leaves it here, and a moment later
// every use that came meanwhile is written together, off the request path. Each use's settings
// export is taken in its session's lane; the write is one changeMany on the SQL stores (compare and
// set, one transaction per 500 records) and one read and write per session, in its lane, elsewhere.
import type { Lanes } from './lane.js';
import type { ChangeOutcome, Logger, SessionRecord, SessionStateChange, SessionStore, UpstreamClient } from './types.js';
import { builtFrom } from './session-record.js';
import type { RecordFields } from './record-fields.js';
import { errorCode, errorName } from './log.js';

/** What the write-behind reads and updates of a cached session (engine/sessions.ts keeps the rest). */
export interface UsedEntry {
  record: SessionRecord;
  /** When the record was last read from (or written to) the store. */
  checkedAt: number;
  /** What the live client was opened from, to tell whether a re-read record still fits it. */
  builtFrom?: string;
  client?: Promise<UpstreamClient>;
}

export interface UseWriterDeps {
  readonly store: SessionStore;
  readonly log: Logger;
  /** The sessions' lanes: an export waits for the session's call in flight. */
  readonly lanes: Lanes;
  /** How long a use waits to be written with the others that come meanwhile. */
  readonly delayMs: number;
  readonly now: () => number;
  /** Drops a session from the cache (it went away meanwhile). */
  forget(id: string): void;
  /** Tells the session's listeners. */
  changed(id: string, change?: SessionStateChange): void;
  /** The record's fields: what a use that changed the state tells. */
  readonly fields: RecordFields;
}

/** A use waiting to be written, as gathered in its session's lane. */
interface Use {
  readonly entry: UsedEntry;
  /** A call brought the session back to active. */
  readonly changed: boolean;
  /** The cached record when the use was gathered. */
  readonly seen: SessionRecord;
  /** The client that exported the settings, to tell whether it is still the one cached. */
  readonly clientPromise?: Promise<UpstreamClient>;
  readonly exported?: Record<string, unknown>;
  /** The account the client acted for when it exported them (UpstreamClient.account). */
  readonly exportedBy?: string;
}

export class UseWriter {
  /** Uses waiting to be written, by session id. */
  private readonly waiting = new Map<string, { entry: UsedEntry; changed: boolean }>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly deps: UseWriterDeps) {}

  /**
   * Write-behind: uses are written a moment later (useWriteDelayMs, 1 s), all that came meanwhile
   * together, off the request path: neither this response nor the next call waits for the store.
   */
  queue(entry: UsedEntry, changed: boolean): void {
    const id = entry.record.id;
    this.waiting.set(id, { entry, changed: changed || (this.waiting.get(id)?.changed ?? false) });
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), this.deps.delayMs);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    this.timer = undefined;
    const queued = [...this.waiting.values()];
    this.waiting.clear();
    if (!queued.length) return;
    const uses = await Promise.all(queued.map(({ entry, changed }) => this.deps.lanes.run(entry.record.id, () => this.gather(entry, changed))));
    if (this.deps.store.changeMany) await this.writeBatch(uses);
    else await this.writeEach(uses);
  }

  /**
   * What a use writes, taken in the session's lane (no call runs on the client while it exports):
   * the record as the calls left it and the client's refreshed settings export.
   */
  private async gather(entry: UsedEntry, changed: boolean): Promise<Use> {
    const client = entry.client ? await entry.client.catch(() => undefined) : undefined;
    let exported: Record<string, unknown> | undefined;
    try {
      exported = client ? await client.exportSettings() : undefined;
    } catch (error) {
      this.deps.log.warn("exporting a session's settings failed; its stored settings are kept", { error: errorCode(error) });
    }
    return { entry, changed, seen: entry.record, clientPromise: entry.client, exported, exportedBy: exported ? client?.account() : undefined };
  }

  /**
   * Every use in one store call, written in one transaction per 500 records. Compare and set stands
   * in for the session's lane: a record another writer changed after the batch read it (a call's
   * state change, a revocation, another instance) is not written over, so no call's state change is
   * lost. That use is skipped, not retried: a state change of this instance was written from
   * `entry.record`, which already holds the use's time, and another instance's write is a use of
   * its own; the settings export waits for the next use. The batch waits for every session's lane
   * to export (a call in flight delays it, as it delayed that session's own write before).
   */
  private async writeBatch(uses: readonly Use[]): Promise<void> {
    const byId = new Map(uses.map((use) => [use.seen.id, use]));
    let outcomes: ReadonlyMap<string, ChangeOutcome>;
    try {
      outcomes = await this.deps.store.changeMany!([...byId.keys()], (stored) => {
        const use = byId.get(stored.id);
        return use && usedRecord(stored, use);
      });
    } catch (error) {
      // Only the error's name: a driver's message may name a host, a user or a value. Not retried:
      // during an outage a retry would only fail again; the sessions' next uses write newer times.
      return void this.deps.log.warn('saving session uses failed', { error: errorCode(error), sessions: uses.length });
    }
    for (const [id, outcome] of outcomes) this.settle(byId.get(id)!, outcome);
  }

  /** Stores without changeMany (memory, Redis): one read and one write per session, in its lane. */
  private async writeEach(uses: readonly Use[]): Promise<void> {
    await Promise.all(
      uses.map((use) =>
        this.deps.lanes
          .run(use.seen.id, () => this.writeOne(use))
          .catch((error) => this.deps.log.warn('saving session use failed', { error: errorName(error) })),
      ),
    );
  }

  private async writeOne(use: Use): Promise<void> {
    const before = await this.deps.store.get(use.seen.id);
    const after = before && usedRecord(before, use);
    if (after) await this.deps.store.set(after);
    this.settle(use, !before ? { status: 'missing' } : after ? { status: 'written', before, after } : { status: 'kept', before });
  }

  /** The cache follows what was written; a session that went away meanwhile leaves it. */
  private settle(use: Use, outcome: ChangeOutcome): void {
    const { entry, seen } = use;
    if (outcome.status === 'missing' || outcome.status === 'kept') return void this.deps.forget(seen.id);
    // changed by another writer after the batch read it: the next call reads what that writer wrote
    if (outcome.status === 'conflict') return void (entry.checkedAt = Number.NEGATIVE_INFINITY);
    const { before, after } = outcome;
    // A call that replaced the cached record since (a newer use, a state change) keeps its own; it
    // takes the settings written, which came from the client it runs on.
    entry.record = entry.record === seen ? after : { ...entry.record, settings: after.settings };
    if (entry.client && entry.client === use.clientPromise) entry.builtFrom = builtFrom(after); // the export came from this very client: it still fits
    entry.checkedAt = this.deps.now();
    this.deps.changed(after.id, use.changed ? this.deps.fields.stateChange(before, after, 'call_succeeded') : undefined);
  }

  /** Everything waiting, written now (the store is about to close). */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    await this.flush();
  }
}

/**
 * The stored record with a use written into it: its time, the client's refreshed settings, and the
 * return to active a call brought. Undefined for a session logged out meanwhile (not brought back).
 */
function usedRecord(stored: SessionRecord, use: Use): SessionRecord | undefined {
  if (stored.state === 'logged_out') return undefined;
  // an export that no longer holds the account (the platform logged the client out) never replaces a good one
  const settings = use.exported && use.exportedBy === stored.account.pk ? use.exported : stored.settings;
  // the success counts only if no later call of this instance changed the state again (throttled, challenged)
  const active = use.changed && use.seen.state === 'active';
  return {
    ...stored,
    settings,
    lastUsedAt: Math.max(stored.lastUsedAt, use.seen.lastUsedAt),
    ...(active ? { state: 'active' as const, throttledUntil: undefined } : {}),
  };
}
