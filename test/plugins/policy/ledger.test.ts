// The budgets' ledger on its own (plugins/policy/ledger.ts), over the memory counters: a busy
// session's calls are answered without waiting for the store once its first batch is held (the next
// batch is reserved behind the calls), never past a limit, exactly at a limit shared by two
// instances, and a store that fails a batch reserved ahead costs nothing until the held slots run out.
import t from 'tap';
import { memoryCounters, type CounterStore } from '../../../plugins/policy/counters.js';
import type { Verdict } from '../../../plugins/policy/entry.js';
import { Ledger, MAX_BATCH } from '../../../plugins/policy/ledger.js';

const MINUTE = 60_000;
// Early in an hour, so early in a minute too: no turn during a test, and a test that moves on a
// minute stays in its hour (from the wall clock's minute, one run in sixty crossed the hour and
// counted the new minute's call in the next hour's counter).
const now = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 1_000;
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** The counters with every add counted, and a switch that makes adds fail. */
function countedStore() {
  const inner = memoryCounters(() => now);
  const seen = { adds: 0, failing: false, batches: [] as number[] };
  const store: CounterStore = {
    ...inner,
    add: (keys, by) => {
      seen.adds++;
      if (by > 0) seen.batches.push(by);
      return seen.failing ? Promise.reject(new Error('store down')) : inner.add(keys, by);
    },
  };
  return { store, seen };
}

/** Takes `n` calls one after another on the ledger's own clock, letting background work run between them; counts how each was answered. */
async function takeMany(ledger: Ledger, n: number, limits: { minute?: number; hour?: number; day?: number }) {
  const counts = { admitted: 0, refused: 0, waited: 0, failed: 0 };
  for (let i = 0; i < n; i++) {
    let verdict: Verdict | undefined | Promise<Verdict | undefined>;
    verdict = ledger.take('ref-1', 'like', 'interactive', limits);
    if (verdict instanceof Promise) {
      counts.waited++;
      verdict = await verdict.catch(() => undefined);
      if (!verdict) {
        counts.failed++;
        continue;
      }
    }
    if (verdict?.admitted) counts.admitted++;
    else counts.refused++;
    await settle();
  }
  return counts;
}

t.test('a busy session waits for the store only at its first calls: later batches are reserved behind the calls', async (t) => {
  const { store, seen } = countedStore();
  const ledger = new Ledger(
    async () => store,
    () => now,
  );
  const counts = await takeMany(ledger, 400, { minute: 100_000, hour: 1_000_000 });
  t.equal(counts.admitted, 400);
  t.ok(counts.waited <= 2, `${counts.waited} of 400 calls waited (the first batch of one, then the first full batch)`);
  t.ok(seen.adds >= 400 / MAX_BATCH, `${seen.adds} adds for 400 calls: in batches`);
  t.ok(seen.adds <= 400 / 8 + 2, `${seen.adds} adds: no more than one per half batch`);
});

t.test('a batch is an eighth of the headroom the store reported, never over MAX_BATCH', async (t) => {
  const table: [string, { minute: number; hour?: number }, number[]][] = [
    // One slot until the totals are known; then the cap, however large the headroom.
    ['a headroom far over the cap', { minute: 1_000_000 }, [1, MAX_BATCH, MAX_BATCH, MAX_BATCH]],
    // 800: 799 left after the first → 99; 700 left → 87; 613 left → 76 (each reserved once half the last is spent).
    ['a headroom under the cap', { minute: 800 }, [1, 99, 87, 76]],
    // The hour is the tighter: 80 - 1 = 79 left → 9; 70 → 8; 62 → 7.
    ['the tightest window sets it', { minute: 800, hour: 80 }, [1, 9, 8, 7]],
  ];
  for (const [name, limits, expected] of table) {
    const { store, seen } = countedStore();
    const ledger = new Ledger(
      async () => store,
      () => now,
    );
    await takeMany(ledger, 1 + expected.slice(1, -1).reduce((sum, batch) => sum + batch, 0), limits);
    t.same(seen.batches.slice(0, expected.length), expected, name);
    t.ok(Math.max(...seen.batches) <= MAX_BATCH, `${name}: no batch over ${MAX_BATCH}`);
    await ledger.close();
  }
});

t.test('never past a limit: 40 calls against 30 a minute admit 30, and the store holds 30', async (t) => {
  const { store } = countedStore();
  const ledger = new Ledger(
    async () => store,
    () => now,
  );
  const counts = await takeMany(ledger, 40, { minute: 30 });
  t.equal(counts.admitted, 30);
  t.equal(counts.refused, 10);
  const [total] = await store.read([{ key: `ref-1:like:minute:${now - (now % MINUTE)}`, expiresAt: now + 2 * MINUTE }]);
  t.equal(total, 30, 'nothing reserved ahead was left unaccounted or over');
});

t.test('two instances sharing a limit of 12 admit exactly 12 of 10 + 10, turn by turn', async (t) => {
  const { store } = countedStore();
  const a = new Ledger(
    async () => store,
    () => now,
  );
  const b = new Ledger(
    async () => store,
    () => now,
  );
  let admitted = 0;
  for (let i = 0; i < 10; i++) {
    for (const ledger of [a, b]) {
      const verdict = await ledger.take('ref-1', 'like', 'interactive', { minute: 12, hour: 100 }, now);
      if (verdict?.admitted) admitted++;
      await settle();
    }
  }
  t.equal(admitted, 12);
});

t.test('a store that fails the batch reserved ahead: the held slots are spent, then calls fail by name, and heal with it', async (t) => {
  const { store, seen } = countedStore();
  const ledger = new Ledger(
    async () => store,
    () => now,
  );
  const limits = { minute: 100_000 };
  t.equal((await takeMany(ledger, 3, limits)).admitted, 3, 'a full batch is held');
  seen.failing = true;
  // More calls than a full batch: what was held runs out while the store is down.
  const calls = MAX_BATCH + 20;
  const down = await takeMany(ledger, calls, limits);
  t.ok(down.admitted >= 8, `${down.admitted} calls spent what was held`);
  t.ok(down.failed > 0, `${down.failed} calls failed once nothing was held`);
  t.equal(down.admitted + down.failed, calls);
  seen.failing = false;
  t.equal((await takeMany(ledger, 20, limits)).admitted, 20, 'the store back: every call admitted');
});

/** A ledger on a clock the test moves, with the hour's counter of `ref-1`'s likes to read. */
function movedLedger() {
  const clock = { now };
  const store = memoryCounters(() => clock.now);
  const ledger = new Ledger(
    async () => store,
    () => clock.now,
  );
  const hourKey = { key: `ref-1:like:hour:${now - (now % 3_600_000)}`, expiresAt: now + 2 * 3_600_000 };
  const minuteKey = { key: `ref-1:like:minute:${now - (now % MINUTE)}`, expiresAt: now + 2 * MINUTE };
  const take = async (n: number, limits: { minute?: number; hour?: number }) => (await takeMany(ledger, n, limits)).admitted;
  const total = async (key: { key: string; expiresAt: number }) => (await store.read([key]))[0];
  return { clock, ledger, take, hourTotal: () => total(hourKey), minuteTotal: () => total(minuteKey) };
}

t.test("a minute's unspent slots go back to the hour at its turn: the hour counts exactly what was admitted", async (t) => {
  const { clock, take, hourTotal } = movedLedger();
  const limits = { minute: 100_000, hour: 1_000_000 };
  t.equal(await take(40, limits), 40);
  const held = (await hourTotal()) - 40;
  t.ok(held > 0, `${held} slots held past the 40 admitted`);
  clock.now += MINUTE;
  t.equal(await take(1, limits), 1, "the next minute's first call");
  t.equal(await hourTotal(), 41, 'the hour counts the 41 admitted: the held slots came back');
});

t.test('a change of limits and a close give the held slots back, to the minute as well while it runs', async (t) => {
  const { ledger, take, hourTotal, minuteTotal } = movedLedger();
  t.equal(await take(40, { minute: 100_000, hour: 1_000_000 }), 40);
  t.ok((await hourTotal()) > 40, 'slots held');
  ledger.forget('ref-1');
  await settle();
  t.equal(await hourTotal(), 40, 'forgotten: the hour counts what was admitted');
  t.equal(await minuteTotal(), 40, 'and so does the minute, which still runs');
  t.equal(await take(40, { minute: 100_000, hour: 1_000_000 }), 40);
  t.ok((await hourTotal()) > 80, 'slots held again');
  await ledger.close();
  t.equal(await hourTotal(), 80, 'closed: the hour counts the 80 admitted');
  t.equal(await minuteTotal(), 80, 'so does the minute');
});

t.test('a session that went quiet gets its slots back at the sweep after its minute', async (t) => {
  const { clock, ledger, take, hourTotal } = movedLedger();
  t.equal(await take(40, { minute: 100_000, hour: 1_000_000 }), 40);
  ledger.sweep();
  await settle();
  t.ok((await hourTotal()) > 40, 'its minute runs: the slots stay held');
  clock.now += MINUTE;
  ledger.sweep();
  await settle();
  t.equal(await hourTotal(), 40, 'the minute ended: the hour counts the 40 admitted');
  await ledger.close();
});
