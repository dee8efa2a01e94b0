// The session store port on keyv: a SQLite file by default (survives restarts, no server), memory
// for tests, Redis or PostgreSQL when several instances share sessions. Chosen by a URL. Records go
// through a codec (the service's encrypts them and hashes their keys); how long a record lives is
// decided per record (expiry of idle and logged-out sessions).
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Keyv, { type KeyvStoreAdapter } from 'keyv';
import type { ReadyCheck, SessionRecord, SessionStore } from '../../engine/types.js';
import { CodecError, jsonCodec, type SessionCodec } from './codec.js';

const NAMESPACE = 'socialgate-sessions';

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
}

const HOUR = 3_600_000;

export async function createStore(url: string, options: StoreOptions | SessionCodec = {}): Promise<SessionStore & { sweep(): Promise<number> }> {
  const { codec = jsonCodec, ttl = () => undefined, sweepMs = HOUR } = 'encode' in options ? { codec: options } : options;
  const keyv = new Keyv<string>({ store: await adapterFor(url), namespace: NAMESPACE });
  keyv.on('error', () => undefined); // surfaced through ready() and the failing call instead
  const store = new KeyvSessionStore(keyv, codec, ttl);
  await store.checkMarker();
  if (sweepMs > 0 && !/^rediss?:/.test(url)) store.sweepEvery(sweepMs);
  return store;
}

async function adapterFor(url: string): Promise<KeyvStoreAdapter | Map<string, unknown>> {
  const scheme = url.split(':')[0];
  switch (scheme) {
    case 'memory':
      return new Map();
    case 'sqlite': {
      const path = resolve(url.replace(/^sqlite:\/\//, ''));
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      const { default: KeyvSqlite } = await import('@keyv/sqlite');
      return new KeyvSqlite({ uri: `sqlite://${path}`, table: 'sessions', busyTimeout: 5000 }) as unknown as KeyvStoreAdapter;
    }
    case 'redis':
    case 'rediss': {
      const { default: KeyvRedis } = await import('@keyv/redis');
      return new KeyvRedis(url, { throwOnConnectError: true }) as unknown as KeyvStoreAdapter;
    }
    case 'postgres':
    case 'postgresql': {
      const { default: KeyvPostgres } = await import('@keyv/postgres');
      return new KeyvPostgres({ uri: url, table: 'socialgate_sessions' }) as unknown as KeyvStoreAdapter;
    }
    default:
      throw new Error(`unknown session store URL scheme "${scheme}:" (use sqlite://PATH, memory://, redis://HOST, postgres://...)`);
  }
}

class KeyvSessionStore implements SessionStore {
  private readonly sweepers: NodeJS.Timeout[] = [];

  constructor(
    private readonly keyv: Keyv<string>,
    private readonly codec: SessionCodec,
    private readonly ttl: (record: SessionRecord) => number | undefined,
  ) {}

  async get(id: string): Promise<SessionRecord | undefined> {
    const key = this.codec.key(id);
    const text = await this.keyv.get(key);
    return typeof text === 'string' ? this.readable(text, key) : undefined;
  }

  async set(record: SessionRecord): Promise<void> {
    const key = this.codec.key(record.id);
    await this.keyv.set(key, this.codec.encode(record, key), this.ttl(record));
  }

  async delete(id: string): Promise<boolean> {
    return this.keyv.delete(this.codec.key(id));
  }

  async *list(): AsyncIterable<SessionRecord> {
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
    await this.keyv.disconnect();
  }

  /** Reads every record once: keyv's iterator deletes the expired ones it meets. Returns how many are left. */
  async sweep(): Promise<number> {
    let left = 0;
    for await (const _ of this.list()) left++;
    return left;
  }

  /** A first sweep soon after start (the service may have been down past many expiries), then periodically. */
  sweepEvery(ms: number): void {
    const run = () => void this.sweep().catch(() => undefined); // a failing store shows in ready(), not here
    this.sweepers.push(setTimeout(run, Math.min(ms, 60_000)).unref(), setInterval(run, ms).unref());
  }

  /** Refuses a store whose records were written with another key: they would all read as missing. */
  async checkMarker(): Promise<void> {
    const marker = this.codec.marker;
    if (!marker) return;
    const text = await this.keyv.get(marker.key);
    if (text === undefined) await this.keyv.set(marker.key, marker.make());
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
