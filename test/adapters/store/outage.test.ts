// A store outage fails fast and heals, with real servers frozen (SIGSTOP: the
// connections stay open and nothing answers, the hardest case) and thawed by the test, and with
// real servers stopped (connections refused) and started again on their data. While the
// store is down a session this instance has cached keeps working; one it has not (made by another
// instance) answers 503 StoreUnavailable with Retry-After within the timeout; a login answers 503
// too; /ready answers 503 within 2 s. After the thaw everything works again without a restart and
// no session is lost.
import type { Test } from 'tap';
import { eachScenarioOnSharedStores, stopped, type Outage } from '../../support/shared-servers.js';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { serve, type Client } from '../../helpers/http.js';
import { freeze, thaw } from '../../support/freeze.js';
import { sleep } from '../../support/process.js';

const TIMEOUT_MS = 300;

async function outage(t: Test, store: string, fault: Outage): Promise<void> {
  const key = 'ab'.repeat(32);
  const config = testConfig({ store, sessionCacheTtlMs: 200, extra: { SESSION_KEY: key, STORE_TIMEOUT_MS: String(TIMEOUT_MS) } });
  const [a, b]: Client[] = [await serve(await composeApp(config)), await serve(await composeApp(config))];
  t.teardown(async () => {
    await fault.up();
    await Promise.all([a.close(), b.close()]);
  });
  const login = async (on: Client) => (await on.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
  const cached = await login(a);
  const elsewhere = await login(b); // a has never seen it
  const user = (on: Client, session: string) => on.request('GET', '/user', { query: { username: 'demo' }, headers: { 'x-session-id': session } });
  t.equal((await user(a, cached)).status, 200);

  await fault.down();
  await sleep(250); // past the record's trust: a would read the store again
  let started = Date.now();
  const still = await user(a, cached);
  t.equal(still.status, 200, `a cached session keeps working (${Date.now() - started} ms)`);

  started = Date.now();
  const refused = await user(a, elsewhere);
  const took = Date.now() - started;
  t.equal(refused.status, 503, refused.text);
  t.match(refused.body, { exc_type: 'StoreUnavailable' });
  t.ok(Number(refused.headers.get('retry-after')) > 0, 'Retry-After');
  t.ok(took < TIMEOUT_MS + 700, `answered in ${took} ms (timeout ${TIMEOUT_MS} ms)`);

  started = Date.now();
  const newLogin = await a.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } });
  t.equal(newLogin.status, 503, 'a login cannot be stored: 503, not a session id that does not exist');
  t.ok(Date.now() - started < TIMEOUT_MS + 1500, `login refused in ${Date.now() - started} ms`);

  started = Date.now();
  const ready = await a.request('GET', '/ready');
  t.equal(ready.status, 503);
  t.ok(Date.now() - started < 2000, `/ready answered in ${Date.now() - started} ms`);
  t.match((ready.body as { detail: string }).detail, /store/);

  await fault.up();
  const deadline = Date.now() + 15_000;
  while ((await a.request('GET', '/ready')).status !== 200 && Date.now() < deadline) await sleep(100);
  const again = await a.request('GET', '/ready');
  t.equal(again.status, 200, `ready again without a restart: ${again.text}`);
  // Each client of the store reconnects on its own back-off: within a few seconds all have.
  let healed = await user(a, elsewhere);
  for (const until = Date.now() + 5000; healed.status !== 200 && Date.now() < until; healed = await user(a, elsewhere)) await sleep(100);
  t.equal(healed.status, 200, "the other instance's session works here now");
  t.equal((await user(a, cached)).status, 200, 'and the cached one still does');
  t.equal((await user(b, cached)).status, 200, 'no session lost');
  t.equal((await a.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).status, 200, 'logins work again');
}

eachScenarioOnSharedStores([
  ['frozen and thawed', (t, server) => outage(t, server.url, { name: 'frozen', down: () => freeze(server.pid), up: () => thaw(server.pid) })],
  ['stopped and started', (t, server) => outage(t, server.url, stopped(server))],
]);
