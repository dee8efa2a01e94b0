// Session lifecycle behind the SessionService port: records from the store, live upstream clients
// in a bounded LRU, one call at a time per session, and the governor that stops calling an
// upstream that has throttled a session until its back-off has passed.
import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { HttpError } from './http-error.js';
import { Lanes } from './lane.js';
import type { Metrics } from './metrics.js';
import type {
  CallOptions, Logger, SessionClient, SessionRecord, SessionService, SessionStore, UpstreamAdapter, UpstreamClient,
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
  /** Whether an upstream failure is the throttling family (429), and its Retry-After. */
  readonly throttled: (error: UpstreamError) => number | undefined;
  readonly now?: () => number;
}

interface Entry {
  record: SessionRecord;
  client?: Promise<UpstreamClient>;
}

const ANONYMOUS = '\u0000anonymous';
const TOUCH_EVERY_MS = 60_000;

export class Sessions implements SessionService {
  private readonly cache: LRUCache<string, Entry>;
  private readonly lanes = new Lanes();
  private anonymousClient?: Promise<UpstreamClient>;
  private readonly now: () => number;

  constructor(private readonly options: SessionsOptions) {
    this.now = options.now ?? Date.now;
    this.cache = new LRUCache<string, Entry>({
      max: options.cacheSize,
      ttl: options.recordTtlMs,
      dispose: (entry) => void closeQuietly(entry.client, options.log),
    });
  }

  async find(id: string): Promise<SessionRecord | undefined> {
    const cached = this.cache.get(id);
    if (cached) return cached.record;
    const record = await this.options.store.get(id);
    if (!record || record.state === 'logged_out') return undefined;
    this.cache.set(id, { record });
    return record;
  }

  client(record: SessionRecord): SessionClient {
    return { call: (method, kwargs, opts) => this.callFor(record.id, method, kwargs, opts) };
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
    this.cache.set(record.id, { record, client: Promise.resolve(client) });
    return record;
  }

  async update(record: SessionRecord, patch: Partial<Omit<SessionRecord, 'id' | 'createdAt'>>): Promise<SessionRecord> {
    const next: SessionRecord = { ...record, ...patch };
    await this.options.store.set(next);
    const entry = this.cache.get(record.id);
    const reopen = ['settings', 'proxy', 'locale', 'timezone'].some((key) => key in patch);
    if (entry && !reopen) entry.record = next;
    else this.cache.delete(record.id); // the next call reopens the client from the new record
    return next;
  }

  async revoke(id: string): Promise<boolean> {
    this.cache.delete(id);
    return this.options.store.delete(id);
  }

  async close(): Promise<void> {
    this.cache.clear();
    await closeQuietly(this.anonymousClient, this.options.log);
  }

  private callFor(id: string, method: string, kwargs: Readonly<Record<string, unknown>>, opts?: CallOptions): Promise<unknown> {
    return this.lanes.run(id, async () => {
      const entry = await this.entry(id);
      this.govern(entry.record);
      entry.client ??= this.options.upstream.open(clientOptions(entry.record));
      try {
        return await this.measured(await entry.client, method, kwargs, opts);
      } catch (error) {
        if (error instanceof UpstreamError) await this.throttleOn(error, entry);
        throw error;
      } finally {
        this.touch(entry);
      }
    });
  }

  private async entry(id: string): Promise<Entry> {
    const cached = this.cache.get(id);
    if (cached) return cached;
    const record = await this.find(id);
    if (!record) throw new HttpError(401, 'Session not found or revoked', { excType: 'SessionNotFound', hint: 'Log in again with POST /auth/login.' });
    return this.cache.get(id) ?? { record };
  }

  /** The governor: a throttled session answers 429 at once, without calling the upstream. */
  private govern(record: SessionRecord): void {
    const until = record.throttledUntil ?? 0;
    const left = until - this.now();
    if (left > 0) {
      throw new HttpError(429, 'The platform throttled this session; calls are paused until the back-off ends', {
        excType: 'SessionThrottled',
        retryAfter: Math.ceil(left / 1000),
        hint: 'Pause automation and retry after the Retry-After delay; lower the request rate.',
      });
    }
  }

  private async throttleOn(error: UpstreamError, entry: Entry): Promise<void> {
    const retryAfter = this.options.throttled(error);
    if (retryAfter === undefined) return;
    const seconds = error.retryAfter ?? retryAfter ?? this.options.throttleBackoffSeconds;
    entry.record = await this.update(entry.record, { state: 'throttled', throttledUntil: this.now() + seconds * 1000 });
  }

  private touch(entry: Entry): void {
    const now = this.now();
    if (now - entry.record.lastUsedAt < TOUCH_EVERY_MS) return;
    entry.record = { ...entry.record, lastUsedAt: now };
    this.options.store.set(entry.record).catch((error) => this.options.log.warn('session touch failed', { error: String(error) }));
  }

  private async measured(client: UpstreamClient, method: string, kwargs: Readonly<Record<string, unknown>>, opts?: CallOptions): Promise<unknown> {
    const started = process.hrtime.bigint();
    let outcome = 'ok';
    try {
      return await client.call(method, kwargs, opts);
    } catch (error) {
      outcome = error instanceof UpstreamError ? error.excType : 'error';
      throw error;
    } finally {
      this.options.metrics.observeUpstream(method, outcome, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }
}

/** Issued by the service: 192 random bits, opaque, never the platform's cookie. */
export function newSessionId(): string {
  return randomBytes(24).toString('base64url');
}

export function clientOptions(record: SessionRecord) {
  return { settings: record.settings, proxy: record.proxy, locale: record.locale, timezone: record.timezone };
}

async function closeQuietly(client: Promise<UpstreamClient> | undefined, log: Logger): Promise<void> {
  if (!client) return;
  try {
    await (await client).close();
  } catch (error) {
    log.warn('closing an upstream client failed', { error: String(error) });
  }
}
