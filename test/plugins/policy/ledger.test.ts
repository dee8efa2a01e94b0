// The budgets' ledger on its own (plugins/policy/ledger.ts), over the memory counters: a busy
// session's calls are answered without waiting for the store once its first batch is held (the next
// batch is reserved behind the calls), never past a limit, exactly at a limit shared by two
// instances, and a store that fails a batch reserved ahead costs nothing until the held slots run out.
import t from 'tap';
import { memoryCounters, type CounterStore } from '../../../plugins/policy/counters.js';
import { Ledger, type Verdict } from '../../../plugins/policy/ledger.js';

const MINUTE = 60_000;
const now = Math.floor(Date.now() / MINUTE) * MINUTE + 1_000; // early in a minute: no turn during a test
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** The counters with every add counted, and a switch that makes adds fail. */
function countedStore() {
  const inner = memoryCounters(() => now);
  const seen = { adds: 0, failing: false };
  const store: CounterStore = {
    ...inner,
    add: (keys, by) => {
      seen.adds++;
      return seen.failing ? Promise.reject(new Error('store down')) : inner.add(keys, by);
    },
  };
  return { store, seen };
}

/** Takes `n` calls one after another, letting background work run between them; counts how each was answered. */
async function takeMany(ledger: Ledger, n: number, limits: { minute?: number; hour?: number; day?: number }) {
  const counts = { admitted: 0, refused: 0, waited: 0, failed: 0 };
  for (let i = 0; i < n; i++) {
    let verdict: Verdict | undefined | Promise<Verdict | undefined>;
    verdict = ledger.take('ref-1', 'like', 'interactive', limits, now);
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
  t.ok(seen.adds >= 400 / 64, `${seen.adds} adds for 400 calls: in batches`);
  t.ok(seen.adds <= 400 / 8 + 2, `${seen.adds} adds: no more than one per half batch`);
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
  const down = await takeMany(ledger, 120, limits);
  t.ok(down.admitted >= 8, `${down.admitted} calls spent what was held`);
  t.ok(down.failed > 0, `${down.failed} calls failed once nothing was held`);
  t.equal(down.admitted + down.failed, 120);
  seen.failing = false;
  t.equal((await takeMany(ledger, 20, limits)).admitted, 20, 'the store back: every call admitted');
});
