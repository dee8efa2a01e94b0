// The session store port on keyv: a SQLite file by default (survives restarts, no server), memory
// for tests, Redis or PostgreSQL when several instances share sessions. Chosen by a URL.
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Keyv, { type KeyvStoreAdapter } from 'keyv';
import type { ReadyCheck, SessionRecord, SessionStore } from '../../engine/types.js';
import { jsonCodec, type SessionCodec } from './codec.js';

const NAMESPACE = 'socialgate-sessions';

export async function createStore(url: string, codec: SessionCodec = jsonCodec): Promise<SessionStore> {
  const keyv = new Keyv<string>({ store: await adapterFor(url), namespace: NAMESPACE });
  keyv.on('error', () => undefined); // surfaced through ready() and the failing call instead
  return new KeyvSessionStore(keyv, codec);
}

async function adapterFor(url: string): Promise<KeyvStoreAdapter | Map<string, unknown>> {
  const scheme = url.split(':')[0];
  switch (scheme) {
    case 'memory':
      return new Map();
    case 'sqlite': {
      const path = resolve(url.replace(/^sqlite:\/\//, ''));
      mkdirSync(dirname(path), { recursive: true });
      const { default: KeyvSqlite } = await import('@keyv/sqlite');
      return new KeyvSqlite({ uri: `sqlite://${path}`, table: 'sessions', busyTimeout: 5000 }) as unknown as KeyvStoreAdapter;
    }
    case 'redis':
    case 'rediss': {
      const { default: KeyvRedis } = await import('@keyv/redis');
      return new KeyvRedis(url) as unknown as KeyvStoreAdapter;
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
  constructor(private readonly keyv: Keyv<string>, private readonly codec: SessionCodec) {}

  async get(id: string): Promise<SessionRecord | undefined> {
    const text = await this.keyv.get(id);
    return typeof text === 'string' ? this.codec.decode(text) : undefined;
  }

  async set(record: SessionRecord): Promise<void> {
    await this.keyv.set(record.id, this.codec.encode(record));
  }

  async delete(id: string): Promise<boolean> {
    return this.keyv.delete(id);
  }

  async *list(): AsyncIterable<SessionRecord> {
    const iterate = this.keyv.iterator as unknown as (() => AsyncIterable<[string, string]>) | undefined;
    if (!iterate) return;
    for await (const [, text] of iterate.call(this.keyv)) {
      if (typeof text === 'string') yield this.codec.decode(text);
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
    await this.keyv.disconnect();
  }
}
