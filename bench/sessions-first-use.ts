// Issue 15 figures (`npm run build && node dist/bench/sessions-first-use.js [COUNT...]`, default
// 10000 100000; prints, asserts nothing): a session's first use after idle on a SQLite store
// holding COUNT sessions, as the service does it (keyv, the encrypting codec, WAL): the store read of
// its record (p50 and p99), the write of one use by itself (the path of stores without changeMany),
// and the write-behind's batched write of 200 uses (one read query and one compare-and-set statement).
// The service's memory is bench/memory.ts, measured in a process of its own.
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fillSqliteRows } from './sqlite-fill.js';
import { createStore } from '../adapters/store/keyv.js';
import { encryptingCodec } from '../adapters/store/crypto.js';
import type { SessionCodec } from '../adapters/store/codec.js';
import type { SessionRecord } from '../engine/types.js';

const ARGS = process.argv.slice(2);
const SIZES = ARGS.map(Number);
if (SIZES.some((size) => !Number.isInteger(size) || size < 1)) throw new Error(`sizes are whole numbers of sessions: ${ARGS.join(' ')}`);
const SAMPLES = 2000;
const BATCH = 200;
const BATCHES = 20;

const pct = (values: number[], p: number) => values.sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;
const ms = (value: number) => `${value.toFixed(2)} ms`;

const record = (i: number): SessionRecord => ({
  id: `session-${i}`,
  account: { pk: String(5_000_000_000 + i), username: `u${i}` },
  settings: { authorization_data: { ds_user_id: String(5_000_000_000 + i), sessionid: `${i}%3Asecret` } },
  state: 'active',
  createdAt: 0,
  lastUsedAt: 0,
});
const randomIds = (count: number, n: number) => Array.from({ length: n }, () => `session-${Math.floor(Math.random() * count)}`);

/** Encrypted as the store writes them: the codec's key and ciphertext. */
function fill(path: string, codec: SessionCodec, count: number): Promise<void> {
  const expires = Date.now() + 86_400_000;
  return fillSqliteRows(path, count, (i) => {
    const key = codec.key(record(i).id);
    return [`socialgate-sessions:${key}`, JSON.stringify({ value: codec.encode(record(i), key), expires })];
  });
}

async function firstUse(count: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sg-first-use-'));
  try {
    const path = join(dir, 'sessions.sqlite');
    const codec = encryptingCodec(randomBytes(32));
    const store = await createStore(`sqlite://${path}`, { codec, sweepMs: 0, ttl: () => 86_400_000 });
    await fill(path, codec, count);
    const reads: number[] = [];
    const writes: number[] = [];
    for (const id of randomIds(count, SAMPLES)) {
      let started = performance.now();
      const found = await store.get(id);
      reads.push(performance.now() - started);
      if (!found) throw new Error(`${id} was not read back`);
      started = performance.now();
      await store.set({ ...found, lastUsedAt: Date.now() });
      writes.push(performance.now() - started);
    }
    const batches: number[] = [];
    for (let n = 0; n < BATCHES; n++) {
      const started = performance.now();
      const outcomes = await store.changeMany!([...new Set(randomIds(count, BATCH))], (stored) => ({ ...stored, lastUsedAt: Date.now() }));
      batches.push(performance.now() - started);
      if ([...outcomes.values()].some((outcome) => outcome.status !== 'written')) throw new Error('a batched use was not written');
    }
    await store.close();
    return (
      `read p50 ${ms(pct(reads, 50))}, p99 ${ms(pct(reads, 99))}; one use written alone p50 ` +
      `${ms(pct(writes, 50))}, p99 ${ms(pct(writes, 99))}; ${BATCH} uses in one batch p50 ${ms(pct(batches, 50))}, ` +
      `max ${ms(pct(batches, 100))} (${BATCHES} batches)`
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const figures: Record<string, string> = {};
for (const count of SIZES.length ? SIZES : [10_000, 100_000]) {
  const started = Date.now();
  figures[`first use at ${count.toLocaleString('en')} stored`] = await firstUse(count);
  console.error(`${count.toLocaleString('en')} stored: ${Date.now() - started} ms in all`);
}
for (const [name, value] of Object.entries(figures)) console.log(`${name}: ${value}`);
process.exit(0);
