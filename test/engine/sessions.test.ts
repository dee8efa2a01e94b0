// The session service: one call at a time per session (and different sessions side by side), the
// governor (after one throttle the next call answers 429 without an upstream call), challenge and
// throttle states, the store read only on a cache miss, use written at most once a minute with the
// refreshed settings, and other instances' revocations and changes seen after the record TTL.
import t from 'tap';
import { composeApp } from '../../bin/compose.js';
import { testConfig } from '../../engine/config.js';
import { createLogger } from '../../engine/log.js';
import { createMetrics } from '../../engine/metrics.js';
import { Sessions } from '../../engine/sessions.js';
import { UpstreamError, type SessionRecord } from '../../engine/types.js';
import { createStore } from '../../adapters/store/keyv.js';
import { createSandbox } from '../../adapters/upstream/sandbox/index.js';
import { fakeUpstream } from '../helpers/fake-upstream.js';
import { serve } from '../helpers/http.js';
import { probeUpstream } from '../support/probe-upstream.js';
import { errorWith } from '../helpers/assert.js';
import { countingStore } from '../helpers/counting-store.js';

const PASSWORD = 'demo-password';
const pleaseWait = (retryAfter?: number) =>
  new UpstreamError('PleaseWaitFewMinutes', 'Please wait a few minutes before you try again.', { bases: ['PrivateError'], retryAfter });

t.test('over HTTP: calls of one session never overlap in the upstream; two sessions run side by side', async (t) => {
  const probe = probeUpstream(createSandbox({ seed: 1 }));
  const http = await serve(await composeApp(testConfig(), { upstream: probe.adapter }));
  t.teardown(() => http.close());
  const login = async () => (await http.request('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD } })).body as string;
  const [a, b] = [await login(), await login()];
  const LATENCY = 150; // long beside the requests' own cost, so the bounds below hold on a busy machine
  probe.latency.set('account_info', LATENCY);
  probe.overlap.perClient = probe.overlap.total = 0;
  const started = Date.now();
  const replies = await Promise.all([a, a, a, b, b, b].map((sid) => http.request('GET', '/account', { headers: { 'x-session-id': sid } })));
  const elapsed = Date.now() - started;
  t.same(
    replies.map((r) => r.status),
    [200, 200, 200, 200, 200, 200],
  );
  t.equal(probe.overlap.perClient, 1, 'never two calls at once on one client');
  t.equal(probe.overlap.total, 2, 'the two sessions ran concurrently');
  t.ok(elapsed >= 3 * LATENCY - 5, `one session's three calls ran one after another (${elapsed} ms)`);
  t.ok(elapsed < 6 * LATENCY, `but not behind the other session's (${elapsed} ms)`);
});

t.test('over HTTP: after one throttle the next call answers 429 at once, without an upstream call', async (t) => {
  const probe = probeUpstream(createSandbox({ seed: 1 }));
  const http = await serve(await composeApp(testConfig({ throttleBackoffSeconds: 42 }), { upstream: probe.adapter }));
  t.teardown(() => http.close());
  const login = async (username: string) => (await http.request('POST', '/auth/login', { form: { username, password: PASSWORD } })).body as string;
  const get = (sid: string) => http.request('GET', '/account', { headers: { 'x-session-id': sid } });

  const throttled = await login('demo_throttled');
  const first = await get(throttled);
  t.match(first, { status: 429, body: { exc_type: 'PleaseWaitFewMinutes' } });
  t.equal(first.headers.get('retry-after'), '42', 'no hint from the upstream: the configured back-off, stated');
  const calls = probe.count('account_info');
  const second = await get(throttled);
  t.match(second, { status: 429, body: { exc_type: 'SessionThrottled' } });
  t.ok(Number(second.headers.get('retry-after')) > 0 && Number(second.headers.get('retry-after')) <= 42, 'Retry-After counts down');
  t.equal(probe.count('account_info'), calls, 'the upstream was not called');
  await Promise.all([get(throttled), get(throttled), get(throttled)]);
  t.equal(probe.count('account_info'), calls, 'nor by queued calls');

  const demo = await login('demo');
  probe.failNext('account_info', pleaseWait(120));
  t.equal((await get(demo)).headers.get('retry-after'), '120', "the upstream's hint wins");
  t.equal((await get(demo)).status, 429);
  t.equal((await get(await login('demo'))).status, 200, 'another session is not paused');
});

/** A Sessions over a fake upstream and a memory store, with a clock the test moves. */
async function harness(options: { recordTtlMs?: number } = {}) {
  const upstream = fakeUpstream();
  const inner = await createStore('memory://');
  const { store, counts } = countingStore(inner);
  const clock = { now: Date.UTC(2025, 0, 1) };
  const sessions = new Sessions({
    useWriteDelayMs: 0, // written at the next turn: settle() sees it
    upstream,
    store,
    metrics: createMetrics(),
    log: createLogger('silent'),
    cacheSize: 10,
    recordTtlMs: options.recordTtlMs ?? 30_000,
    throttleBackoffSeconds: 60,
    throttled: (error) => (error.excType === 'PleaseWaitFewMinutes' ? 300 : undefined),
    challenged: (error) => error.excType === 'ChallengeRequired',
    now: () => clock.now,
  });
  const login = await upstream.open({ settings: {} });
  await login.call('login', {});
  const record = await sessions.create(login, { account: { pk: '42', username: 'someone' }, proxy: 'http://127.0.0.1:3128' });
  const settle = () => new Promise((resolve) => setTimeout(resolve, 5));
  return { upstream, inner, store, counts, clock, sessions, record, client: sessions.client(record), settle };
}

t.test('the governor pauses until the back-off has passed, then the session is active again', async (t) => {
  const h = await harness();
  h.upstream.handlers.account_info = () => {
    throw pleaseWait();
  };
  await t.rejects(h.client.call('account_info', {}), errorWith({ excType: 'PleaseWaitFewMinutes', retryAfter: 60 }));
  t.match(await h.inner.get(h.record.id), { state: 'throttled', throttledUntil: h.clock.now + 60_000 }, 'saved: other instances see it');
  h.clock.now += 59_000;
  await t.rejects(h.client.call('account_info', {}), errorWith({ status: 429, retryAfter: 1 }));
  t.equal(h.upstream.calls.filter((c) => c.method === 'account_info').length, 1);
  h.clock.now += 1_000;
  h.upstream.handlers.account_info = () => ({ pk: '42' });
  t.same(await h.client.call('account_info', {}), { pk: '42' });
  await h.settle();
  t.match(await h.inner.get(h.record.id), { state: 'active', throttledUntil: undefined });
});

t.test('a challenge marks the session pending; a later success makes it active', async (t) => {
  const h = await harness();
  h.upstream.handlers.user_info = () => {
    throw new UpstreamError('ChallengeRequired', 'challenge_required', { bases: ['ChallengeError'], lastJson: { message: 'challenge_required' } });
  };
  await t.rejects(h.client.call('user_info', {}), errorWith({ excType: 'ChallengeRequired' }));
  t.equal((await h.inner.get(h.record.id))!.state, 'challenge');
  t.ok(await h.client.call('account_info', {}), 'calls still go through (the owner may solve it in the app)');
  await h.settle();
  t.equal((await h.inner.get(h.record.id))!.state, 'active');
});

t.test('hot path: no store read while the record is fresh; use written at most once a minute, with the refreshed export', async (t) => {
  const h = await harness();
  const before = { ...h.counts };
  for (let i = 0; i < 50; i++) {
    await h.sessions.find(h.record.id);
    await h.client.call('account_info', {});
    h.clock.now += 500; // 25 s in all
  }
  await h.settle();
  t.same(h.counts, before, 'no store read or write for 50 requests');
  h.clock.now += 40_000;
  await h.sessions.find(h.record.id);
  t.equal(h.counts.get, before.get + 1, 'read again once the record is older than the TTL');
  await h.client.call('account_info', {});
  await h.settle();
  t.equal(h.counts.set, before.set + 1, 'one write after a minute');
  const saved = (await h.inner.get(h.record.id))!;
  t.equal(saved.lastUsedAt, h.clock.now);
  t.same(saved.settings, { authorization_data: { ds_user_id: '42', sessionid: 'platform-cookie' } }, 'with the live client’s export');
  t.equal(h.upstream.opened.length, 1, 'the login client is still the live one');
});

t.test('another instance: a revocation is seen after the TTL; a changed proxy reopens the client', async (t) => {
  const h = await harness({ recordTtlMs: 1000 });
  await h.client.call('account_info', {});
  await h.inner.set({ ...(await h.inner.get(h.record.id))!, proxy: 'socks5://127.0.0.1:1080' } as SessionRecord);
  await h.client.call('account_info', {});
  t.equal(h.upstream.opened.length, 1, 'within the TTL the cached record is used');
  h.clock.now += 1000;
  await h.client.call('account_info', {});
  t.equal(h.upstream.opened.length, 2, 'reopened from the changed record');
  t.match(h.upstream.opened[1], { proxy: 'socks5://127.0.0.1:1080' });
  await h.inner.delete(h.record.id);
  h.clock.now += 1000;
  await t.rejects(h.client.call('account_info', {}), errorWith({ status: 401, excType: 'SessionNotFound' }));
  t.equal(await h.sessions.find(h.record.id), undefined);
});

t.test('revoke and logged-out records are not found; a logged-out use does not resurrect the record', async (t) => {
  const h = await harness();
  const updated = await h.sessions.update(h.record, { state: 'logged_out', settings: {} });
  t.equal(updated.state, 'logged_out');
  t.equal(await h.sessions.find(h.record.id), undefined);
  const h2 = await harness();
  t.equal(await h2.sessions.revoke(h2.record.id), true);
  t.equal(await h2.sessions.find(h2.record.id), undefined);
  t.equal(await h2.inner.get(h2.record.id), undefined);
});
