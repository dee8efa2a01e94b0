// One call at a time per session across instances. Two instances (processes)
// share Redis, then PostgreSQL; the sandbox takes 100 ms a call. 20 calls on one session, 10 sent
// to each instance at once, take at least 20 × 100 ms: they never overlap anywhere (without the
// lease each instance would run its ten beside the other's, in half the time). An instance killed
// mid-call releases the session within the lease time, and the other's call then goes through.
import type { Test } from 'tap';
import { onEachSharedStore } from '../../support/shared-servers.js';
import { randomBytes } from 'node:crypto';
import { startServices, type Service } from '../../support/service.js';

const LATENCY_MS = 100;
const LEASE_MS = 1000;

async function leased(t: Test, store: string): Promise<void> {
  const key = randomBytes(32).toString('hex');
  const env = { SOCIALGATE_SANDBOX_LATENCY_MS: String(LATENCY_MS), SOCIALGATE_LEASE_MS: String(LEASE_MS) };
  // The third instance, whose calls take 5 s, is the holder killed below; started beside the other two.
  const [a, b, slow] = await startServices(3, { store, key, env, sessionCacheTtlMs: 200 }, [{}, {}, { SOCIALGATE_SANDBOX_LATENCY_MS: '5000' }]);
  t.teardown(() => Promise.all([a.dispose(), b.dispose(), slow.dispose()]));
  const session = (await a.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
  const call = (on: Service) => on.request('GET', '/user?username=demo', { headers: { 'x-session-id': session } });
  await Promise.all([call(a), call(b)]); // both have the session cached

  const started = Date.now();
  const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 ? b : a)));
  const took = Date.now() - started;
  t.same(
    replies.map((r) => r.status),
    Array(20).fill(200),
    'all answered',
  );
  t.ok(took >= 20 * LATENCY_MS * 0.95, `20 calls of ${LATENCY_MS} ms over two instances took ${took} ms: one at a time`);

  // A holder killed mid-call: a slow call (the sandbox's latency is per call, so the third instance,
  // with a long latency, holds the lease for seconds), then B's call waits for the lease.
  const held = call(slow).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 500)); // the slow call holds the lease now
  await slow.kill();
  void held;
  const after = Date.now();
  const through = await call(b);
  const waited = Date.now() - after;
  t.equal(through.status, 200, through.text);
  t.ok(waited <= LEASE_MS + 1500, `the dead holder's lease ended: B's call went through in ${waited} ms (lease ${LEASE_MS} ms)`);
}

onEachSharedStore('two instances', (t, server) => leased(t, server.url));
