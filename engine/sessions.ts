// Session lifecycle behind the SessionService port: records from the store, live upstream clients
// in a bounded LRU, one call at a time per session, each call governed (./governor.ts: a throttled
// session's upstream is not called until its back-off has passed).
//
// The hot path reads nothing from the store: a cached record is trusted for recordTtlMs, then
// read (and decrypted) again so that a revocation or a throttle on another instance is seen; the
// live client survives that re-read unless what it was built from (settings, proxy, locale,
// timezone) changed. Use is written back at most once a minute per session, with the client's
// refreshed settings export, so a restart resumes from the newest cookies (engine/session-uses.ts).
import { LRUCache } from 'lru-cache';
import { serviceError } from './service-errors.js';
import { Lanes } from './lane.js';
import type { Metrics } from './metrics.js';
import type {
  CallOptions,
  Logger,
  RealtimeHandlers,
  RealtimeSubscription,
  SessionClient,
  SessionLease,
  SessionRecord,
  SessionService,
  SessionState,
  SessionStateChange,
  SessionStore,
  UpstreamAdapter,
  UpstreamClient,
} from './types.js';
import { UpstreamError } from './types.js';
import { builtFrom, clientOptions, newSessionId, sessionRef } from './session-record.js';
import { RecordFields } from './record-fields.js';
import { UseWriter, type UsedEntry } from './session-uses.js';
import { errorName } from './log.js';
import { Governor, type GovernorOptions } from './governor.js';
import { AnonymousClient, closeQuietly } from './anonymous-client.js';

/** With the governor's own (throttleBackoffSeconds, throttled, challenged). */
export interface SessionsOptions extends GovernorOptions {
  readonly upstream: UpstreamAdapter;
  readonly store: SessionStore;
  readonly metrics: Metrics;
  readonly log: Logger;
  /** Live clients kept at once. */
  readonly cacheSize: number;
  /** How long a cached record is trusted before the store is read again (other instances may revoke). */
  readonly recordTtlMs: number;
  /** How long a use waits to be written with the others that come meanwhile (write-behind); default 1000. */
  readonly useWriteDelayMs?: number;
  /** Several instances on one store: each call also holds the session's lease there. */
  readonly lease?: SessionLease;
  readonly now?: () => number;
  /** The record's fields, the engine's and the modules' (engine/record-fields.ts); default the engine's alone. */
  readonly fields?: RecordFields;
}

interface Entry extends UsedEntry {
  /** The same client once opened, so the hot path need not await a settled promise. */
  live?: UpstreamClient;
  /** The SessionClient handed to requests, made once per cached session. */
  facade?: SessionClient;
}

type Patch = Partial<Omit<SessionRecord, 'id' | 'createdAt'>>;

export class Sessions implements SessionService {
  private readonly cache: LRUCache<string, Entry>;
  private readonly lanes = new Lanes();
  /** The calls that need no session (engine/anonymous-client.ts). */
  private readonly anonymousClient: AnonymousClient;
  private readonly now: () => number;
  private readonly listeners = new Set<(id: string, change?: SessionStateChange) => void>();
  /** Uses waiting to be written, off the request path (engine/session-uses.ts). */
  private readonly uses: UseWriter;
  private readonly fields: RecordFields;
  private readonly governor: Governor;

  constructor(private readonly options: SessionsOptions) {
    this.now = options.now ?? Date.now;
    this.fields = options.fields ?? new RecordFields([], options.log);
    this.cache = new LRUCache<string, Entry>({
      max: options.cacheSize,
      // closed behind any call still running on it: an evicted client is never pulled from under a call
      dispose: (entry, id) => void this.lanes.run(id, () => closeQuietly(entry.client, options.log)),
    });
    this.uses = new UseWriter({
      store: options.store,
      log: options.log,
      lanes: this.lanes,
      delayMs: options.useWriteDelayMs ?? 1000,
      now: this.now,
      forget: (id) => this.cache.delete(id),
      changed: (id, change) => this.changed(id, change),
      fields: this.fields,
    });
    this.anonymousClient = new AnonymousClient(options.upstream, options.metrics, this.lanes);
    this.governor = new Governor(options, { now: this.now, update: (record, patch, reason) => this.update(record, patch, reason), uses: this.uses });
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
    return this.anonymousClient.client();
  }

  async create(client: UpstreamClient, init: Parameters<SessionService['create']>[1]): Promise<SessionRecord> {
    this.fields.checkWrite(init);
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
    this.fields.checkWrite(patch);
    const next: SessionRecord = { ...before, ...patch };
    await this.options.store.set(next);
    if (next.state === 'logged_out') this.cache.delete(record.id);
    else if (entry) this.refit(entry, next);
    this.changed(record.id, this.fields.stateChange(before, next, reason));
    return next;
  }

  carried(record: SessionRecord): Partial<SessionRecord> {
    const standing = record.state === 'throttled' || record.state === 'challenge' ? { state: record.state, throttledUntil: record.throttledUntil } : {};
    return { ...standing, ...this.fields.carriedFrom(record) };
  }

  async revoke(id: string): Promise<boolean> {
    const before = this.cache.get(id)?.record ?? (await this.options.store.get(id).catch(() => undefined));
    this.cache.delete(id);
    const removed = await this.options.store.delete(id);
    this.changed(id, removed && before ? this.fields.stateChange(before, { ...before, state: 'logged_out' }, 'revoked') : undefined);
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
    await this.uses.close(); // what was used is written before the store closes
    this.cache.clear();
    await this.anonymousClient.close(this.options.log);
  }

  /** The cached entry while its record is younger than recordTtlMs: the hot path, no await. */
  private trusted(id: string, now = this.now()): Entry | undefined {
    const cached = this.cache.get(id);
    return cached && now - cached.checkedAt < this.options.recordTtlMs ? cached : undefined;
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
    this.fields.noteRead(record);
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
    // One clock read for the record's trust, the throttle and the use (a call's start is its time).
    const now = this.now();
    const entry = this.trusted(id, now) ?? (await this.fresh(id));
    if (!entry) throw serviceError('SessionNotFound', 'Session not found or revoked');
    this.governor.admit(entry.record, now);
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
      if (error instanceof UpstreamError) outcome = await this.governor.onUpstreamError(error, entry);
      throw error;
    } finally {
      this.options.metrics.observeUpstream(method, label, (performance.now() - started) / 1000);
      this.governor.afterCall(entry, outcome, now);
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
}
