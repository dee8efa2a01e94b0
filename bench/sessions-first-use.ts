// Issue 15 figures (`npm run build && node --expose-gc dist/bench/sessions-first-use.js`; prints,
// asserts nothing): a session's first use after idle (the store read of its record, and the write
// of its use, as the service does them: keyv, the encrypting codec, WAL) at 10k and 100k stored
// sessions, p50 and p99; and the service's RSS idle after boot and with 10,000 stored sessions of
// which 1,000 are live (logged in, a client each).
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore } from '../adapters/store/keyv.js';
import { encryptingCodec } from '../adapters/store/crypto.js';
import { composeApp } from '../bin/compose.js';
import { testConfig } from '../engine/config.js';
import type { SessionRecord } from '../engine/types.js';
import { serve } from '../test/helpers/http.js';

const mb = (bytes: number) => (bytes / 1048576).toFixed(0);
const pct = (values: number[], p: number) => values.sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))];

async function firstUse(count: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'sg-first-use-'));
  try {
    const store = await createStore(`sqlite://${join(dir, 'sessions.sqlite')}`, { codec: encryptingCodec(randomBytes(32)), sweepMs: 0 });
    const record = (i: number): SessionRecord => ({ id: `session-${i}`, account: { pk: String(5_000_000_000 + i), username: `u${i}` }, settings: { authorization_data: { ds_user_id: String(i), sessionid: `${i}%3Asecret` } }, state: 'active', createdAt: 0, lastUsedAt: 0 });
    for (let i = 0; i < count; i += 500) await Promise.all(Array.from({ length: Math.min(500, count - i) }, (_, j) => store.set(record(i + j))));
    const reads: number[] = [];
    const writes: number[] = [];
    for (let n = 0; n < 2000; n++) {
      const i = Math.floor(Math.random() * count);
      let started = performance.now();
      const found = await store.get(`session-${i}`);
      reads.push(performance.now() - started);
      started = performance.now();
      await store.set({ ...found!, lastUsedAt: Date.now() });
      writes.push(performance.now() - started);
    }
    await store.close();
    return `read p50 ${pct(reads, 50).toFixed(2)} ms, p99 ${pct(reads, 99).toFixed(2)} ms; use write p50 ${pct(writes, 50).toFixed(2)} ms, p99 ${pct(writes, 99).toFixed(2)} ms`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function memory(): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), 'sg-memory-'));
  const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  try {
    const app = await composeApp(testConfig({ store: `sqlite://${join(dir, 'sessions.sqlite')}`, dataDir: dir, cacheSize: 1000, extra: { SESSION_KEY: 'ab'.repeat(32) } }));
    const http = await serve(app);
    await http.request('GET', '/openapi.json');
    gc();
    const idle = process.memoryUsage().rss;
    const store = await createStore(`sqlite://${join(dir, 'sessions.sqlite')}`, { codec: encryptingCodec(Buffer.from('ab'.repeat(32), 'hex')), sweepMs: 0 });
    for (let i = 0; i < 9000; i += 500) {
      await Promise.all(Array.from({ length: 500 }, (_, j) => store.set({ id: `stored-${i + j}`, account: { pk: String(i + j), username: `u${i + j}` }, settings: {}, state: 'active', createdAt: Date.now(), lastUsedAt: Date.now() })));
    }
    await store.close();
    for (let i = 0; i < 1000; i++) {
      const session = (await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
      await http.request('GET', '/user', { query: { username: 'demo' }, headers: { 'x-session-id': session } });
    }
    gc();
    const loaded = process.memoryUsage().rss;
    await http.close();
    return { 'RSS idle after boot (MB)': mb(idle), 'RSS with 10,000 stored and 1,000 live sessions (MB)': mb(loaded) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const figures: Record<string, string> = {};
for (const count of [10_000, 100_000]) figures[`first use at ${count.toLocaleString('en')} stored`] = await firstUse(count);
Object.assign(figures, await memory());
for (const [name, value] of Object.entries(figures)) console.log(`${name}: ${value}`);
process.exit(0);
