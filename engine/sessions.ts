// Session lifecycle behind the SessionService port: records from the store, live upstream clients
// in a bounded LRU, one call at a time per session, and the governor that stops calling an
// upstream that has throttled a session until its back-off has passed.
//
// The hot path reads nothing from the store: a cached record is trusted for recordTtlMs, then
// read (and decrypted) again so that a revocation or a throttle on another instance is seen; the
// live client survives that re-read unless what it was built from (settings, proxy, locale,
// timezone) changed. Use is written back at most once a minute per session, with the client's
// refreshed settings export, so a restart resumes from the newest cookies.
import { createHash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { serviceError } from './service-errors.js';
import { Lanes } from './lane.js';
import type { Metrics } from './metrics.js';
import type {
  CallOptions, ChangeOutcome, ClientOptions, Logger, RealtimeHandlers, RealtimeSubscription, SessionClient, SessionLease, SessionRecord, SessionService, SessionState, SessionStateChange, SessionStore, UpstreamAdapter, UpstreamClient,
} from './types.js';
import { UpstreamError } from './types.js';

export interface SessionsOptions {
  readonly upstream: UpstreamAdapter;
  readonly store: SessionStore;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Live clients kept at once. */
  readonly cacheSize: number;
  /** How long a cached record is trusted before the store is read again (other instances may revoke). */
  readonly recordTtlMs: number;
  /** Seconds to back off when a throttle error carries no hint of its own. */
  readonly throttleBackoffSeconds: number;
  /** Whether an upstream failure is the throttling family (429): a number (its mapped Retry-After) when it is. */
  readonly throttled: (error: UpstreamError) => number | undefined;
  /** Whether an upstream failure leaves the session waiting for a challenge (the error registry's `session: challenge`). */
  readonly challenged: (error: UpstreamError) => boolean;
  /** How long a use waits to be written with the others that come meanwhile (write-behind); default 1000. */
  readonly useWriteDelayMs?: number;
  /** Several instances on one store: each call also holds the session's lease there. */
  readonly lease?: SessionLease;
  readonly now?: () => number;
}

interface Entry {
  record: SessionRecord;
  /** When the record was last read from (or written to) the store. */
  checkedAt: number;
  /** What the live client was opened from, to tell whether a re-read record still fits it. */
  builtFrom?: string;
  client?: Promise<UpstreamClient>;
  /** The same client once opened, so the hot path need not await a settled promise. */
  live?: UpstreamClient;
  /** The SessionClient handed to requests, made once per cached session. */
  facade?: SessionClient;
}

type Patch = Partial<Omit<SessionRecord, 'id' | 'createdAt'>>;

/** A use waiting to be written, as gathered in its session's lane. */
interface Use {
  readonly entry: Entry;
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

const ANONYMOUS = '\u0000anonymous';
const TOUCH_EVERY_MS = 60_000;

export class Sessions implements SessionService {
  private readonly cache: LRUCache<string, Entry>;
  private readonly lanes = new Lanes();
  private anonymousClient?: Promise<UpstreamClient>;
  private readonly now: () => number;
  private readonly listeners = new Set<(id: string, change?: SessionStateChange) => void>();
  /** Uses waiting to be written (write-behind), by session id. */
  private readonly uses = new Map<string, { entry: Entry; changed: boolean }>();
  private useTimer?: NodeJS.Timeout;

  constructor(private readonly options: SessionsOptions) {
    this.now = options.now ?? Date.now;
    this.cache = new LRUCache<string, Entry>({
      max: options.cacheSize,
      // closed behind any call still running on it: an evicted client is never pulled from under a call
      dispose: (entry, id) => void this.lanes.run(id, () => closeQuietly(entry.client, options.log)),
    });
  }

  async find(id: string): Promise<SessionRecord | undefined> {
    const entry = await this.fresh(id);
    return entry?.record;
  }

  peek(id: string): SessionRecord | undefined {
    return this.trusted(id)?.record;
  }

  client(record: SessionRecord): SessionClient {
    const entry = this.cache.get(record.id);
    if (entry) return (entry.facade ??= this.facade(record.id));
    return this.facade(record.id);
  }

  private facade(id: string): SessionClient {
    return { call: (method, kwargs, opts) => this.callFor(id, method, kwargs, opts) };
  }

  anonymous(): SessionClient {
    return {
      call: (method, kwargs, opts) =>
        this.lanes.run(ANONYMOUS, async () => {
          this.anonymousClient ??= this.options.upstream.open({ settings: {} });
          return this.measured(await this.anonymousClient, method, kwargs, opts);
        }),
    };
  }

  async create(client: UpstreamClient, init: Parameters<SessionService['create']>[1]): Promise<SessionRecord> {
    const now = this.now();
    const record: SessionRecord = {
      ...init,
      id: newSessionId(),
      settings: await client.exportSettings(),
      state: init.state ?? 'active',
      createdAt: now,
      lastUsedAt: now,
    };
    await this.options.store.set(record);
    this.cache.set(record.id, { record, checkedAt: now, builtFrom: builtFrom(record), client: Promise.resolve(client), live: client });
    this.changed(record.id);
    return record;
  }

  async update(record: SessionRecord, patch: Patch, reason = 'updated'): Promise<SessionRecord> {
    const entry = this.cache.get(record.id);
    const before = entry?.record ?? record;
    const next: SessionRecord = { ...before, ...patch };
    await this.options.store.set(next);
    if (next.state === 'logged_out') this.cache.delete(record.id);
    else if (entry) this.refit(entry, next);
    this.changed(record.id, stateChange(before, next, reason));
    return next;
  }

  async revoke(id: string): Promise<boolean> {
    const before = this.cache.get(id)?.record ?? (await this.options.store.get(id).catch(() => undefined));
    this.cache.delete(id);
    const removed = await this.options.store.delete(id);
    this.changed(id, removed && before ? stateChange(before, { ...before, state: 'logged_out' }, 'revoked') : undefined);
    return removed;
  }

  /** Opened on the session's own live client, beside its lane: a stream waits for news, it holds no call. */
  async realtime(record: SessionRecord, handlers: RealtimeHandlers): Promise<RealtimeSubscription | undefined> {
    const entry = await this.fresh(record.id);
    if (!entry) throw serviceError('SessionNotFound', 'Session not found or revoked');
    const client = entry.live ?? (await this.clientOf(entry));
    return client.realtime ? client.realtime(handlers) : undefined;
  }

  subscribe(listener: (id: string, change?: SessionStateChange) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Off the request path: a listener's failure or slowness never reaches the caller. */
  private changed(id: string, change?: SessionStateChange): void {
    for (const listener of this.listeners) {
      queueMicrotask(() => {
        try {
          listener(id, change);
        } catch (error) {
          this.options.log.warn('a session listener failed', { error: errorName(error) });
        }
      });
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.useTimer);
    await this.flushUses(); // what was used is written before the store closes
    this.cache.clear();
    await closeQuietly(this.anonymousClient, this.options.log);
  }

  /** The cached entry while its record is younger than recordTtlMs: the hot path, no await. */
  private trusted(id: string): Entry | undefined {
    const cached = this.cache.get(id);
    return cached && this.now() - cached.checkedAt < this.options.recordTtlMs ? cached : undefined;
  }

  /** The cached entry, re-read from the store once its record is older than recordTtlMs. */
  private async fresh(id: string): Promise<Entry | undefined> {
    const cached = this.cache.get(id);
    if (cached && this.now() - cached.checkedAt < this.options.recordTtlMs) return cached;
    let record: SessionRecord | undefined;
    try {
      record = await this.options.store.get(id);
    } catch (error) {
      if (!cached) throw error;
      this.options.log.warn('session store unreachable; using the cached session record', { error: errorName(error) });
      // Availability over a revocation another instance may have made meanwhile; trusted for another
      // record TTL, so the calls that follow do not each wait out the store's timeout again.
      cached.checkedAt = this.now();
      return cached;
    }
    if (!record || record.state === 'logged_out') {
      if (cached) this.cache.delete(id);
      return undefined;
    }
    const entry = this.cache.get(id) ?? cached;
    if (entry) return this.refit(entry, record);
    const created: Entry = { record, checkedAt: this.now() };
    this.cache.set(id, created);
    return created;
  }

  /** Installs a newer record; the live client goes when what it was built from changed. */
  private refit(entry: Entry, record: SessionRecord): Entry {
    entry.record = record;
    entry.checkedAt = this.now();
    if (entry.client && entry.builtFrom !== builtFrom(record)) {
      void this.lanes.run(record.id, () => closeQuietly(entry.client, this.options.log)).catch(() => undefined);
      entry.client = undefined;
      entry.live = undefined;
    }
    return entry;
  }

  /** The lane orders this instance's calls; the lease (shared stores only) those of every instance. */
  private callFor(id: string, method: string, kwargs: Readonly<Record<string, unknown>>, opts?: CallOptions): Promise<unknown> {
    const lease = this.options.lease;
    if (!lease) return this.lanes.run(id, () => this.callNow(id, method, kwargs, opts));
    return this.lanes.run(id, () => lease.hold(sessionRef(id), () => this.callNow(id, method, kwargs, opts)));
  }

  /** One call, inside the session's lane. Awaits only what is not already at hand. */
  private async callNow(id: string, method: string, kwargs: Readonly<Record<string, unknown>>, opts?: CallOptions): Promise<unknown> {
    const entry = this.trusted(id) ?? (await this.fresh(id));
    if (!entry) throw serviceError('SessionNotFound', 'Session not found or revoked');
    this.govern(entry.record);
    const client = entry.live ?? (await this.clientOf(entry));
    const started = performance.now();
    let outcome: SessionState | undefined;
    let label = 'ok';
    try {
      const value = await client.call(method, kwargs, opts);
      outcome = 'active';
      return value;
    } catch (error) {
      label = error instanceof UpstreamError ? error.excType : 'error';
      if (error instanceof UpstreamError) outcome = await this.onUpstreamError(error, entry);
      throw error;
    } finally {
      this.options.metrics.observeUpstream(method, label, (performance.now() - started) / 1000);
      this.afterCall(entry, outcome);
    }
  }

  private clientOf(entry: Entry): Promise<UpstreamClient> {
    if (!entry.client) {
      entry.builtFrom = builtFrom(entry.record);
      const opening = this.options.upstream.open(clientOptions(entry.record));
      entry.client = opening;
      opening.then(
        (client) => {
          if (entry.client === opening) entry.live = client;
        },
        () => {
          if (entry.client === opening) entry.client = undefined; // the next call tries again
        },
      );
    }
    return entry.client;
  }

  /** The governor: a throttled session answers 429 at once, without calling the upstream. */
  private govern(record: SessionRecord): void {
    const left = (record.throttledUntil ?? 0) - this.now();
    if (left > 0) {
      throw serviceError('SessionThrottled', 'The platform throttled this session; calls are paused until the back-off ends', { retryAfter: Math.ceil(left / 1000) });
    }
  }

  /**
   * Throttling pauses the session (the upstream's hint, else the configured back-off, which the
   * answer's Retry-After then states too); a challenge marks it pending. Returns the new state.
   */
  private async onUpstreamError(error: UpstreamError, entry: Entry): Promise<SessionState | undefined> {
    if (this.options.throttled(error) !== undefined) {
      const seconds = error.retryAfter ?? this.options.throttleBackoffSeconds;
      await this.update(entry.record, { state: 'throttled', throttledUntil: this.now() + seconds * 1000 }, error.excType);
      if (error.retryAfter === undefined) (error as { retryAfter?: number }).retryAfter = seconds;
      return 'throttled';
    }
    if (this.options.challenged(error)) {
      if (entry.record.state !== 'challenge') await this.update(entry.record, { state: 'challenge' }, error.excType);
      return 'challenge';
    }
    return undefined;
  }

  /** A success ends a throttle or challenge state; use is recorded at most once a minute. */
  private afterCall(entry: Entry, outcome: SessionState | undefined): void {
    const record = entry.record;
    const changed = outcome === 'active' && record.state !== 'active';
    const due = this.now() - record.lastUsedAt >= TOUCH_EVERY_MS;
    if (!changed && !due) return;
    entry.record = { ...record, state: changed ? 'active' : record.state, lastUsedAt: due ? this.now() : record.lastUsedAt };
    this.queueUse(entry, changed);
  }

  /**
   * Write-behind: uses are written a moment later (useWriteDelayMs, 1 s), all that came meanwhile
   * together, off the request path: neither this response nor the next call waits for the store.
   */
  private queueUse(entry: Entry, changed: boolean): void {
    const id = entry.record.id;
    this.uses.set(id, { entry, changed: changed || (this.uses.get(id)?.changed ?? false) });
    if (this.useTimer) return;
    this.useTimer = setTimeout(() => void this.flushUses(), this.options.useWriteDelayMs ?? 1000);
    this.useTimer.unref();
  }

  private async flushUses(): Promise<void> {
    this.useTimer = undefined;
    const queued = [...this.uses.values()];
    this.uses.clear();
    if (!queued.length) return;
    const uses = await Promise.all(queued.map(({ entry, changed }) => this.lanes.run(entry.record.id, () => this.gatherUse(entry, changed))));
    if (this.options.store.changeMany) await this.writeBatch(uses);
    else await this.writeEach(uses);
  }

  /**
   * What a use writes, taken in the session's lane (no call runs on the client while it exports):
   * the record as the calls left it and the client's refreshed settings export.
   */
  private async gatherUse(entry: Entry, changed: boolean): Promise<Use> {
    const client = entry.client ? await entry.client.catch(() => undefined) : undefined;
    let exported: Record<string, unknown> | undefined;
    try {
      exported = client ? await client.exportSettings() : undefined;
    } catch (error) {
      this.options.log.warn('exporting a session\'s settings failed; its stored settings are kept', { error: nameOf(error) });
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
      outcomes = await this.options.store.changeMany!([...byId.keys()], (stored) => {
        const use = byId.get(stored.id);
        return use && usedRecord(stored, use);
      });
    } catch (error) {
      // Only the error's name: a driver's message may name a host, a user or a value. Not retried:
      // during an outage a retry would only fail again; the sessions' next uses write newer times.
      return void this.options.log.warn('saving session uses failed', { error: nameOf(error), sessions: uses.length });
    }
    for (const [id, outcome] of outcomes) this.settleUse(byId.get(id)!, outcome);
  }

  /** Stores without changeMany (memory, Redis): one read and one write per session, in its lane. */
  private async writeEach(uses: readonly Use[]): Promise<void> {
    await Promise.all(uses.map((use) =>
      this.lanes.run(use.seen.id, () => this.writeOne(use)).catch((error) => this.options.log.warn('saving session use failed', { error: errorName(error) }))));
  }

  private async writeOne(use: Use): Promise<void> {
    const before = await this.options.store.get(use.seen.id);
    const after = before && usedRecord(before, use);
    if (after) await this.options.store.set(after);
    this.settleUse(use, !before ? { status: 'missing' } : after ? { status: 'written', before, after } : { status: 'kept', before });
  }

  /** The cache follows what was written; a session that went away meanwhile leaves it. */
  private settleUse(use: Use, outcome: ChangeOutcome): void {
    const { entry, seen } = use;
    if (outcome.status === 'missing' || outcome.status === 'kept') return void this.cache.delete(seen.id);
    // changed by another writer after the batch read it: the next call reads what that writer wrote
    if (outcome.status === 'conflict') return void (entry.checkedAt = Number.NEGATIVE_INFINITY);
    const { before, after } = outcome;
    // A call that replaced the cached record since (a newer use, a state change) keeps its own; it
    // takes the settings written, which came from the client it runs on.
    entry.record = entry.record === seen ? after : { ...entry.record, settings: after.settings };
    if (entry.client && entry.client === use.clientPromise) entry.builtFrom = builtFrom(after); // the export came from this very client: it still fits
    entry.checkedAt = this.now();
    this.changed(after.id, use.changed ? stateChange(before, after, 'call_succeeded') : undefined);
  }

  private async measured(client: UpstreamClient, method: string, kwargs: Readonly<Record<string, unknown>>, opts?: CallOptions): Promise<unknown> {
    const started = performance.now();
    let outcome = 'ok';
    try {
      return await client.call(method, kwargs, opts);
    } catch (error) {
      outcome = error instanceof UpstreamError ? error.excType : 'error';
      throw error;
    } finally {
      this.options.metrics.observeUpstream(method, outcome, (performance.now() - started) / 1000);
    }
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
  return { ...stored, settings, lastUsedAt: Math.max(stored.lastUsedAt, use.seen.lastUsedAt), ...(active ? { state: 'active' as const, throttledUntil: undefined } : {}) };
}

/** The change when the state or its throttle deadline moved; undefined for any other update. */
function stateChange(before: SessionRecord, after: SessionRecord, reason: string): SessionStateChange | undefined {
  if (before.state === after.state && (after.state !== 'throttled' || before.throttledUntil === after.throttledUntil)) return undefined;
  return { record: after, from: before.state, to: after.state, reason, throttledUntil: after.state === 'throttled' ? after.throttledUntil : undefined };
}

/**
 * How the console, events and webhooks name a session: 132 bits of SHA-256 of its id, stable across
 * instances and restarts, unguessable, and no way back to the id (a session id is a credential).
 */
export function sessionRef(id: string): string {
  return createHash('sha256').update('socialgate session ref\0').update(id).digest('base64url').slice(0, 22);
}

/** Issued by the service: 192 random bits, opaque, never the platform's cookie. */
export function newSessionId(): string {
  return randomBytes(24).toString('base64url');
}

export function clientOptions(record: SessionRecord): ClientOptions {
  // The account pk names the session to the upstream: stable across reopenings and restarts, and no secret.
  const sessionKey = record.account.pk || undefined;
  return { settings: record.settings, proxy: record.proxy, locale: record.locale, timezone: record.timezone, sessionKey };
}

function builtFrom(record: SessionRecord): string {
  return JSON.stringify([record.settings, record.proxy ?? null, record.locale ?? null, record.timezone ?? null]);
}

const nameOf = (error: unknown) => (error instanceof Error ? (error as { code?: string }).code ?? error.name : 'unknown error');
const errorName = (error: unknown) => (error instanceof Error ? error.name + ': ' + error.message : 'unknown error');

async function closeQuietly(client: Promise<UpstreamClient> | undefined, log: Logger): Promise<void> {
  if (!client) return;
  try {
    await (await client).close();
  } catch (error) {
    log.warn('closing an upstream client failed', { error: errorName(error) });
  }
}
