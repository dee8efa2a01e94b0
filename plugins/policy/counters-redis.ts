// The policy's counters on Redis: one Lua script adds to every window of a class and sets each
// key's expiry in the same step (a script runs alone on the server: no other instance's increment
// falls in between), so Redis forgets a window by itself when it ends.
import { Redis } from 'ioredis';
import type { CounterStore } from './counters.js';

const NS = 'socialgate:policy';
const ADD = `
local totals = {}
for i, key in ipairs(KEYS) do
  totals[i] = redis.call('INCRBY', key, ARGV[1])
  redis.call('PEXPIREAT', key, ARGV[i + 1])
end
return totals`;

export function redisCounters(url: string, timeoutMs: number): CounterStore {
  // A command the server does not answer fails after the store timeout (as the work store's do).
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1, commandTimeout: timeoutMs });
  redis.on('error', () => undefined); // surfaced by the failing call
  const named = (key: string) => `${NS}:n:${key}`;
  return {
    open: async () => undefined, // the client connects when it is made
    async add(keys, by) {
      const totals = (await redis.eval(
        ADD,
        keys.length,
        ...keys.map((key) => named(key.key)),
        String(by),
        ...keys.map((key) => String(key.expiresAt)),
      )) as number[];
      return totals.map(Number);
    },
    read: async (keys) => (await redis.mget(...keys.map((key) => named(key.key)))).map((value) => Number(value ?? 0)),
    settings: async (ref) => (await redis.get(`${NS}:session:${ref}`)) ?? undefined,
    saveSettings: async (ref, value) => void (await redis.set(`${NS}:session:${ref}`, value)),
    close: async () => void redis.disconnect(),
  };
}
