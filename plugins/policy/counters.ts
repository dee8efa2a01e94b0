// The policy's counters and per-session settings, kept beside the sessions so that restarts and
// every instance on the store share them. One atomic statement per reservation, never a read then a
// write: SQL `INSERT ... ON CONFLICT DO UPDATE ... RETURNING` (SQLite, PostgreSQL), a Lua script of
// INCRBY and PEXPIREAT on Redis. Counter keys name a session's ref (never its id), a class, a window
// and the window's start, so a window that ends simply stops being asked for and is swept later.
import { dirname, join, resolve } from 'node:path';
import type { Config } from '../../engine/types.js';
import { storeTimeoutMs } from '../../adapters/store/index.js';

/** One window's counter: its key and when it may be forgotten (epoch ms). */
export interface CounterKey {
  readonly key: string;
  readonly expiresAt: number;
}

export interface CounterStore {
  /**
   * Connected and its tables made: what the first counted call would otherwise wait for, within
   * the store timeout (a new PostgreSQL connection and its schema can take longer on a busy machine).
   */
  open(): Promise<void>;
  /** Adds `by` (negative to give back) to every key in one atomic step; answers each key's total after it. */
  add(keys: readonly CounterKey[], by: number): Promise<number[]>;
  /** Each key's total now (0 when absent). */
  read(keys: readonly CounterKey[]): Promise<number[]>;
  /** A session's own settings (GET and PATCH /policy), by its ref. */
  settings(ref: string): Promise<string | undefined>;
  saveSettings(ref: string, value: string): Promise<void>;
  close(): Promise<void>;
}

/** The counters for a session store URL: the same server, or a file beside the SQLite sessions, or memory. */
export async function openCounters(config: Config): Promise<CounterStore> {
  const url = config.store;
  const timeoutMs = storeTimeoutMs(config.extra);
  if (/^rediss?:/.test(url)) return (await import('./counters-redis.js')).redisCounters(url, timeoutMs);
  if (/^postgres(ql)?:/.test(url)) return (await import('./counters-sql.js')).pgCounters(url, timeoutMs);
  if (url.startsWith('sqlite:')) return (await import('./counters-sql.js')).sqliteCounters(policyFileFor(url));
  return memoryCounters();
}

/** The SQLite sessions' folder holds the policy's file too (its own connection, WAL). */
function policyFileFor(url: string): string {
  return join(dirname(resolve(url.replace(/^sqlite:\/\//, ''))), 'policy.sqlite');
}

/** One process's counters (memory:// stores, tests). */
export function memoryCounters(now: () => number = Date.now): CounterStore {
  const counts = new Map<string, { n: number; expiresAt: number }>();
  const settings = new Map<string, string>();
  const total = (key: CounterKey): number => {
    const held = counts.get(key.key);
    return held && held.expiresAt > now() ? held.n : 0;
  };
  return {
    open: async () => undefined,
    async add(keys, by) {
      return keys.map((key) => {
        const n = total(key) + by;
        counts.set(key.key, { n, expiresAt: key.expiresAt });
        return n;
      });
    },
    read: async (keys) => keys.map(total),
    settings: async (ref) => settings.get(ref),
    saveSettings: async (ref, value) => void settings.set(ref, value),
    close: async () => undefined,
  };
}

/** Races a store call against the store timeout: a frozen server fails the call fast, by name. */
export function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the policy store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
