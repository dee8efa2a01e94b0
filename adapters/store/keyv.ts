// The session store port on keyv: a SQLite file by default (survives restarts, no server), memory
// for tests, Redis or PostgreSQL when several instances share sessions. Chosen by a URL. Records go
// through a codec (the service's encrypts them and hashes their keys); how long a record lives is
// decided per record (expiry of idle and logged-out sessions).
import Keyv from 'keyv';
import type { ChangeOutcome, Logger, ReadyCheck, SessionRecord, SessionStore, SweepStats } from '../../engine/types.js';
import { CodecError, jsonCodec, type SessionCodec } from './codec.js';
import { withinStoreTime } from './bounded.js';
import { rows, unwrap, type RowPager } from './pages.js';
import { chunks, type RowSwap, type RowWriter } from './batch.js';
import { adapterFor, disconnectKeyv, NAMESPACE, type OwnSql, sqlFor, sweepPaged, walMode } from './keyv-backends.js';

export interface StoreOptions {
  readonly codec?: SessionCodec;
  /** Milliseconds a record is kept after this write; undefined keeps it until deleted. */
  readonly ttl?: (record: SessionRecord) => number | undefined;
  /**
   * How often expired records are removed from stores that do not expire them themselves (SQLite,
   * PostgreSQL, memory: keyv drops an expired record only when it is read, so idle sessions nobody
   * asks for again would stay forever). Default hourly; 0 turns the sweep off. Redis expires its own.
   */
  readonly sweepMs?: number;
  /** Where a failed sweep is reported (as an error, with its cause); the counts are in sweepStats(). */
  readonly log?: Logger;
  /**
   * Redis and PostgreSQL: milliseconds one get, set or delete may take: past it (or on any failure
   * of the server) the call fails at once as StoreUnavailable (503 with Retry-After) instead of
   * waiting for the server. Default 500; the sweep and listings are not bounded (they walk pages in
   * the background). A local SQLite file is not bounded: its failures are immediate.
   */
  readonly timeoutMs?: number;
}

const HOUR = 3_600_000;

export async function createStore(url: string, options: StoreOptions | SessionCodec = {}): Promise<SessionStore & { sweep(): Promise<number> }> {
  const { codec = jsonCodec, ttl = () => undefined, sweepMs = HOUR, log, timeoutMs = 500 } = 'encode' in options ? { codec: options } : options;
  const adapter = await adapterFor(url, timeoutMs);
  if (url.startsWith('sqlite:')) await walMode(adapter);
  // A failed write must fail its caller (a login whose session was not stored is no login); keyv
  // would otherwise answer false and carry on.
  const keyv = new Keyv<string>({ store: adapter, namespace: NAMESPACE, throwOnErrors: true });
  keyv.on('error', () => undefined); // surfaced through ready() and the failing call instead
  const store = new KeyvSessionStore(keyv, codec, ttl, sqlFor(url, adapter), log, {
    ms: timeoutMs,
    engine: url.split(':')[0],
    network: /^(rediss?|postgres(ql)?):/.test(url),
  });
  await store.checkMarker();
  if (sweepMs > 0 && !/^rediss?:/.test(url)) store.sweepEvery(sweepMs);
  return store;
}

class KeyvSessionStore implements SessionStore {
  private readonly sweepers: NodeJS.Timeout[] = [];
  private readonly stats = { runs: 0, failures: 0, removed: 0 };
  private readonly pager?: RowPager;
  /** Only the SQL stores change many records at once; without it the caller writes one at a time. */
  readonly changeMany?: SessionStore['changeMany'];

  constructor(
    private readonly keyv: Keyv<string>,
    private readonly codec: SessionCodec,
    private readonly ttl: (record: SessionRecord) => number | undefined,
    sql?: OwnSql,
    private readonly log?: Logger,
    private readonly limit: { readonly ms: number; readonly engine: string; readonly network: boolean } = { ms: 500, engine: 'store', network: false },
  ) {
    this.pager = sql?.pager;
    if (sql) this.changeMany = (ids, change) => this.changeInBatches(sql.writer, ids, change);
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    const key = this.codec.key(id);
    const text = await this.bounded('read', this.keyv.get(key));
    return typeof text === 'string' ? this.readable(text, key) : undefined;
  }

  async set(record: SessionRecord): Promise<void> {
    const key = this.codec.key(record.id);
    await this.bounded('write', this.keyv.set(key, this.codec.encode(record, key), this.ttl(record)));
  }

  async delete(id: string): Promise<boolean> {
    return this.bounded('delete', this.keyv.delete(this.codec.key(id)));
  }

  /** Not bounded by the store timeout: like the sweep, it runs in the background, off any request. */
  private async changeInBatches(
    writer: RowWriter,
    ids: readonly string[],
    change: (stored: SessionRecord) => SessionRecord | undefined,
  ): Promise<Map<string, ChangeOutcome>> {
    const outcomes = new Map<string, ChangeOutcome>();
    for (const batch of chunks(ids)) await this.changeBatch(writer, batch, change, outcomes);
    return outcomes;
  }

  /**
   * One read, one compare-and-set write. A row whose text changed between the two is left as the
   * other writer made it and reported as a conflict (the caller decides whether it matters).
   */
  private async changeBatch(
    writer: RowWriter,
    ids: readonly string[],
    change: (stored: SessionRecord) => SessionRecord | undefined,
    outcomes: Map<string, ChangeOutcome>,
  ): Promise<void> {
    const keys = ids.map((id) => this.codec.key(id));
    const texts = await writer.read(keys.map(fullKey));
    const swaps: RowSwap[] = [];
    const pending = new Map<string, { id: string; before: SessionRecord; after: SessionRecord }>();
    for (const [i, id] of ids.entries()) {
      const key = keys[i]!;
      const was = texts.get(fullKey(key));
      const before = was === undefined ? undefined : await this.liveRecord(was, key);
      if (!before) {
        outcomes.set(id, { status: 'missing' });
        continue;
      }
      const after = change(before);
      if (!after) {
        outcomes.set(id, { status: 'kept', before });
        continue;
      }
      swaps.push({ key: fullKey(key), was: was!, text: await this.rowText(after, key) });
      pending.set(fullKey(key), { id, before, after });
    }
    const written = await writer.swap(swaps);
    for (const [key, { id, before, after }] of pending) outcomes.set(id, written.has(key) ? { status: 'written', before, after } : { status: 'conflict' });
  }

  /** A stored row as keyv's get reads it: expired rows and undecodable records are missing. */
  private async liveRecord(text: string, key: string): Promise<SessionRecord | undefined> {
    const stored = await this.keyv.deserializeData<string>(text);
    if (!stored || typeof stored.value !== 'string' || (typeof stored.expires === 'number' && Date.now() > stored.expires)) return undefined;
    return this.readable(stored.value, key);
  }

  /** keyv's own row format (`{value, expires}` through its serializer), so keyv's get reads it as if keyv had written it. */
  private async rowText(record: SessionRecord, key: string): Promise<string> {
    const ttl = this.ttl(record);
    const text = await this.keyv.serializeData({ value: this.codec.encode(record, key), expires: ttl ? Date.now() + ttl : undefined });
    if (typeof text !== 'string') throw new Error('the keyv serializer did not produce text');
    return text;
  }

  /**
   * One store call, given up after the timeout: the caller gets StoreUnavailable (503, Retry-After)
   * at once, whatever the server does. Only the error's class is told: a driver's message may name
   * a host or a user.
   */
  private bounded<T>(what: string, call: Promise<T>): Promise<T> {
    if (!this.limit.network) return call; // a local file has no outage to wait out: its errors come at once
    return withinStoreTime(`session store (${this.limit.engine})`, what, this.limit.ms, call);
  }

  /**
   * The store's first calls, when it opens: a first connection may take longer than one call, so
   * they have several call timeouts (at least 3 s), but a store that is down stops the start, or a
   * CLI command, within seconds instead of hanging.
   */
  private opening<T>(what: string, call: Promise<T>): Promise<T> {
    if (!this.limit.network) return call;
    return withinStoreTime(`session store (${this.limit.engine})`, what, Math.max(3000, 5 * this.limit.ms), call);
  }

  async *list(): AsyncIterable<SessionRecord> {
    if (this.pager) return yield* this.listPaged(this.pager);
    const iterate = this.keyv.iterator as unknown as (() => AsyncIterable<[string, string]>) | undefined;
    if (!iterate) return;
    for await (const [key, text] of iterate.call(this.keyv)) {
      if (key === this.codec.marker?.key || key.startsWith('ready-') || typeof text !== 'string') continue;
      const record = this.readable(text, key);
      if (record) yield record;
    }
  }

  async ready(): Promise<ReadyCheck> {
    try {
      const probe = `ready-${process.pid}`;
      await this.keyv.set(probe, 'ok', 10_000);
      const ok = (await this.keyv.get(probe)) === 'ok';
      await this.keyv.delete(probe);
      return ok ? { ok } : { ok, detail: 'session store did not return what was written' };
    } catch (error) {
      return { ok: false, detail: `session store unusable: ${(error as Error).message}` };
    }
  }

  async close(): Promise<void> {
    for (const timer of this.sweepers) clearTimeout(timer);
    await disconnectKeyv(this.keyv).catch((error: Error) => this.log?.warn('closing the session store', { error: error.message }));
  }

  /**
   * Removes the expired records; returns how many are left. On the SQL stores a page of keys at a
   * time, each page's expired rows in one statement; elsewhere keyv's iterator deletes what it meets.
   */
  async sweep(): Promise<number> {
    if (!this.pager) {
      let left = 0;
      for await (const _ of this.list()) left++;
      return left;
    }
    const { left, removed } = await sweepPaged(this.pager);
    this.stats.removed += removed;
    return left;
  }

  sweepStats(): SweepStats {
    return { ...this.stats };
  }

  /** A first sweep soon after start (the service may have been down past many expiries), then periodically. */
  sweepEvery(ms: number): void {
    const run = () => void this.sweepReported();
    this.sweepers.push(setTimeout(run, Math.min(ms, 60_000)).unref(), setInterval(run, ms).unref());
  }

  /** A scheduled sweep: a failure is an error in the log with its cause and a count in /metrics, never swallowed. */
  private async sweepReported(): Promise<void> {
    this.stats.runs++;
    try {
      await this.sweep();
    } catch (error) {
      this.stats.failures++;
      this.log?.error('session expiry sweep failed; expired sessions stay until the next one', {
        error: `${(error as Error).name}: ${(error as Error).message}`,
      });
    }
  }

  private async *listPaged(pager: RowPager): AsyncIterable<SessionRecord> {
    const now = Date.now();
    for await (const [full, text] of rows(pager)) {
      const key = full.slice(NAMESPACE.length + 1);
      const stored = unwrap(text);
      if (!stored || typeof stored.value !== 'string' || (stored.expires !== undefined && stored.expires <= now)) continue;
      if (key === this.codec.marker?.key || key.startsWith('ready-')) continue;
      const record = this.readable(stored.value, key);
      if (record) yield record;
    }
  }

  /** Refuses a store whose records were written with another key: they would all read as missing. */
  async checkMarker(): Promise<void> {
    const marker = this.codec.marker;
    if (!marker) return;
    const text = await this.opening('read', this.keyv.get(marker.key));
    if (text === undefined) await this.opening('write', this.keyv.set(marker.key, marker.make()));
    else if (typeof text !== 'string' || !marker.matches(text)) {
      throw new Error('the session store was written with another session key: give every instance the same SOCIALGATE_SESSION_KEY (or the same key file)');
    }
  }

  /** A record that does not decode (another key, tampering) reads as missing: its holder logs in again. */
  private readable(text: string, key: string): SessionRecord | undefined {
    try {
      return this.codec.decode(text, key);
    } catch (error) {
      if (error instanceof CodecError || error instanceof SyntaxError) return undefined;
      throw error;
    }
  }
}

const fullKey = (key: string) => `${NAMESPACE}:${key}`;
