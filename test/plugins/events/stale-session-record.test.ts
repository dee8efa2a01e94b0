// A watch is never lost to a second instance's cached session record. Instance
// B uses each session first (its cache then holds a record from before the watch, trusted for a
// minute), A starts the watch and then stops, so every later check runs on B: twenty trials on Redis
// and twenty on PostgreSQL, each watch still there after six checks made by B. In process: two apps
// with their own session caches and queue workers, sharing one real server.
import t, { type Test } from 'tap';
import { randomBytes } from 'node:crypto';
import { onEachSharedStore } from '../../support/shared-servers.js';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { serve, stringBody, type Client } from '../../helpers/http.js';
import { poll } from '../../helpers/poll.js';

const TRIALS = 20;
const CHECKS = 6;
// 21 s alone; twenty watches checked ten times a second on two apps is heavy for PostgreSQL on a busy
// machine (a check can wait seconds for its turn), so the checks get a minute and the file five.
t.setTimeout(300_000);

type Watch = { watching: boolean; checks?: number };

/** B's good checks so far, from its own /metrics (each app has its own registry). */
async function checksOn(on: Client): Promise<number> {
  const text = (await on.request('GET', '/metrics')).text;
  return Number(/socialgate_watch_checks_total\{outcome="ok"\} (\d+)/.exec(text)?.[1] ?? 0);
}

async function trials(t: Test, store: string): Promise<void> {
  const extra = { SESSION_KEY: randomBytes(32).toString('hex'), WATCH_FLOOR_SECONDS: '0.05', WORK_LOCK_MS: '2000', STORE_TIMEOUT_MS: '3000' };
  const config = testConfig({ store, sessionCacheTtlMs: 60_000, extra });
  const [a, b] = [await serve(await composeApp(config)), await serve(await composeApp(config))];
  let aOpen = true;
  t.teardown(() => Promise.all([aOpen ? a.close() : undefined, b.close()]));
  const sessions = await Promise.all(
    Array.from({ length: TRIALS }, async () => {
      const session = stringBody(await a.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } }));
      const as = { 'x-session-id': session };
      t.equal((await b.request('GET', '/account', { headers: as })).status, 200); // B caches a record without the watch
      const started = await a.request('POST', '/events/watch', { form: { interval_seconds: '0.1' }, headers: as });
      t.equal(started.status, 200, started.text);
      return as;
    }),
  );
  // A stops: from now on only B checks (a check A held is B's once its lock lapses, 2 s).
  await a.close();
  aOpen = false;
  const before = await checksOn(b);
  const watch = async (as: Record<string, string>) => (await b.request('GET', '/events/watch', { headers: as })).body as Watch;
  const kept = await Promise.all(
    sessions.map(async (as) => {
      const from = (await watch(as)).checks ?? 0;
      return poll(
        `${CHECKS} checks on B`,
        () => watch(as),
        (w) => !w.watching || (w.checks ?? 0) >= from + CHECKS,
        60_000,
        100,
      );
    }),
  );
  const ranOnB = (await checksOn(b)) - before;
  t.equal(kept.filter((w) => w.watching).length, TRIALS, `all ${TRIALS} watches kept through ${CHECKS} checks each on B`);
  t.ok(ranOnB >= TRIALS * CHECKS, `B, whose cached records predate the watches, ran ${ranOnB} checks`);
}

onEachSharedStore('a stale cached record never ends a watch', (t, server) => trials(t, server.url));
