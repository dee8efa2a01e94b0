// The account-safety policy's counters (plugins/policy/counters*.ts): how many counted calls a
// second each store takes when every call is its own reservation (the worst case: batches of one,
// as near a limit), one after another and 16 at a time; far from a limit the hot path reserves an
// eighth of the headroom per store call, up to 256 slots (plugins/policy/ledger.ts). SQLite always (a file in a temp folder); Redis and PostgreSQL
// when BENCH_REDIS_URL / BENCH_PG_URL name throwaway servers. Prints figures, asserts nothing.
//
//   node dist/bench/policy-counters.js          BENCH_CALLS (default 2000) per store and mode
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testConfig } from '../engine/config.js';
import { openCounters, type CounterStore } from '../plugins/policy/counters.js';
import { counterKey } from '../plugins/policy/entry.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);

/** Counted calls a second: each one atomic add to the minute, hour and day of one class. */
async function rate(store: CounterStore, parallel: number): Promise<number> {
  const keys = (i: number) => (['minute', 'hour', 'day'] as const).map((window) => counterKey(`bench${i % 50}`, 'like', window, Date.now()));
  const started = process.hrtime.bigint();
  let next = 0;
  const worker = async () => {
    while (next < CALLS) await store.add(keys(next++), 1);
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return CALLS / (Number(process.hrtime.bigint() - started) / 1e9);
}

export async function benchCounters(
  urls: Readonly<Record<string, string>>,
  log: (line: string) => void = (line) => process.stdout.write(line + '\n'),
): Promise<void> {
  for (const [name, url] of Object.entries(urls)) {
    const store = await openCounters(testConfig({ store: url }));
    try {
      await rate(store, 4); // the connection and the schema first
      log(
        `${name.padEnd(10)} ${(await rate(store, 1)).toFixed(0).padStart(6)} counted calls/s one at a ` +
          `time, ${(await rate(store, 16)).toFixed(0).padStart(6)} with 16 in flight`,
      );
    } finally {
      await store.close();
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = mkdtempSync(join(tmpdir(), 'socialgate-policy-bench-'));
  const urls: Record<string, string> = { sqlite: `sqlite://${join(dir, 'sessions.sqlite')}` };
  if (process.env.BENCH_REDIS_URL) urls.redis = process.env.BENCH_REDIS_URL;
  if (process.env.BENCH_PG_URL) urls.postgres = process.env.BENCH_PG_URL;
  await benchCounters(urls).finally(() => rmSync(dir, { recursive: true, force: true }));
}
