// The scenario every shared store must pass with two real `socialgate serve` processes on it: a
// session made on one works on the other, one stopped with SIGTERM and started again loses none,
// and a revocation on one reaches the other once its cached record is older than the TTL.
import type { Test } from 'tap';
import { poll } from '../helpers/poll.js';
import type { Service } from './service.js';

const as = (sid: string) => ({ 'x-session-id': sid });
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const login = (on: Service, form: Record<string, string> = {}) =>
  on.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password', ...form } });

/** Runs the scenario; leaves two live sessions in the store (the caller counts them its own way). */
export async function sharedSessionsScenario(t: Test, a: Service, b: Service, ttlMs: number): Promise<void> {
  const made = await login(a, { locale: 'pt_PT' });
  t.equal(made.status, 200, made.status === 200 ? 'logged in on A' : made.text);
  const sid = made.body as string;
  t.match(await b.request('GET', '/account', { headers: as(sid) }), { status: 200, body: { username: 'demo' } }, 'made on A, works on B');
  t.equal(((await b.request('GET', '/auth/settings', { headers: as(sid) })).body as { locale: string }).locale, 'pt_PT', 'with its locale');

  const second = (await login(b)).body as string;
  t.equal(await b.stop(), 0, 'B stops cleanly on SIGTERM');
  await b.start();
  t.equal((await b.request('GET', '/account', { headers: as(second) })).status, 200, 'B restarted: its session is still there');
  t.equal((await a.request('GET', '/account', { headers: as(second) })).status, 200, 'and A sees it');

  t.equal((await b.request('GET', '/account', { headers: as(sid) })).status, 200);
  await a.request('PATCH', '/auth/settings', { form: { locale: 'de_DE' }, headers: as(sid) }); // rotates: sid is revoked on A
  await wait(ttlMs + 50);
  t.match(
    await b.request('GET', '/account', { headers: as(sid) }),
    { status: 401, body: { exc_type: 'SessionNotFound' } },
    "A's revocation reaches B after the TTL",
  );
}

/** Named API keys on a shared store: one instance's key store adds, another's knows it; a revoke crosses within the TTL. */
export async function sharedKeysScenario(t: Test, url: string): Promise<void> {
  const [{ openKeyStore }, { KeyRing }] = await Promise.all([import('../../adapters/store/keys.js'), import('../../engine/keys.js')]);
  const stores = [await openKeyStore(url), await openKeyStore(url)];
  t.teardown(() => Promise.all(stores.map((store) => store.close())));
  const [a, b] = [new KeyRing(stores[0], undefined, 0), new KeyRing(stores[1], undefined, 100)];
  const { key } = await a.add({ name: 'shared-agent', scopes: ['read'], accounts: ['demo'] });
  t.match(await b.verify(key), { name: 'shared-agent', scopes: ['read'], accounts: ['demo'] }, 'added on one instance, known to the other');
  t.ok(await b.required(), 'the other now requires keys');
  t.equal(await b.verify(key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A')), undefined, 'a near miss is no key');
  t.ok(await a.revoke('shared-agent'));
  await wait(150);
  // Past its TTL the other reads the store again, but a check waits at most 50 ms for that read
  // (STALE_WAIT_MS) and answers from its last set meanwhile: a loaded machine's slow read lands a
  // check or two later.
  const known = await poll(
    'the revoked key on the other instance',
    () => b.verify(key),
    (grant) => grant === undefined,
    3000,
    25,
  );
  t.equal(known, undefined, 'revoked on one, refused by the other once its TTL ended and the store answered');
}
