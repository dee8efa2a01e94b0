// Freeze only what the platform objected to. A FeedbackRequired on a like freezes
// the session's `like` class alone: the next like is refused with 429 ActionFrozen and Retry-After
// before the platform sees it, follows and reads go on; the freeze is emitted as
// session.state.changed with the class, counted in /metrics, shown by the console, and kept in the
// session record, so a second app on the same SQLite file after a restart still refuses likes. An
// account-wide throttle (PleaseWaitFewMinutes) still pauses the whole session.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { sessionRef } from '../../../engine/session-record.js';
import { createSandbox, FIXED, type SandboxAdapter } from '../../../adapters/upstream/sandbox/index.js';
import { hiddenLimit } from '../../../adapters/upstream/sandbox/limits.js';
import { eventsModule } from '../../../plugins/events/module.js';
import { frozenClasses, nextFreeze } from '../../../plugins/policy/freeze.js';
import { serve, type Client } from '../../helpers/http.js';
import { poll } from '../../helpers/poll.js';

const media = '3955340313237098052_5000000001';
const dir = mkdtempSync(join(tmpdir(), 'policy-freeze-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const config = testConfig({ store: `sqlite://${join(dir, 'sessions.sqlite')}`, dataDir: dir });
// A tenth of the like limit keeps the run short; the block lasts ten minutes.
const SCALE = 0.1;
const BLOCK_SECONDS = 600;

/** A sandbox whose platform calls are listed, to prove a refusal never reached it. */
function counted(sandbox: SandboxAdapter, calls: string[]): SandboxAdapter {
  return new Proxy(sandbox, {
    get(target, prop) {
      if (prop !== 'open') return Reflect.get(target, prop) as unknown;
      return async (options: Parameters<SandboxAdapter['open']>[0]) => {
        const client = await target.open(options);
        return new Proxy(client, {
          get: (c, p) =>
            p === 'call' ? (m: string, k: Record<string, unknown>, o?: unknown) => (calls.push(m), c.call(m, k, o as never)) : (Reflect.get(c, p) as unknown),
        });
      };
    },
  });
}

async function start(calls: string[]): Promise<{ http: Client; app: Awaited<ReturnType<typeof composeApp>> }> {
  const app = await composeApp(config, { upstream: counted(createSandbox({ seed: 1, limitScale: SCALE, blockSeconds: BLOCK_SECONDS }), calls) });
  return { app, http: await serve(app) };
}

const firstCalls: string[] = [];
const first = await start(firstCalls);
const session = (await first.http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
const as = { 'x-session-id': session };
const like = (http: Client) => http.request('POST', '/media/like', { form: { media_id: media }, headers: as });
const follow = (http: Client) => http.request('POST', '/user/follow', { form: { user_id: FIXED.demo_2fa }, headers: as });

t.test('a blocked like freezes likes alone; follows and reads go on', async (t) => {
  const limit = hiddenLimit(1, FIXED.demo, 'like', SCALE);
  for (let i = 0; i < limit; i++) t.equal((await like(first.http)).status, 200, `like ${i + 1} of ${limit}`);
  const blocked = await like(first.http);
  t.equal(blocked.status, 429);
  t.match(blocked.body, { exc_type: 'FeedbackRequired' });
  t.equal(blocked.headers.get('retry-after'), String(BLOCK_SECONDS), "the freeze lasts the platform's hint");

  const platformCalls = firstCalls.length;
  const refused = await like(first.http);
  t.equal(refused.status, 429);
  t.match(refused.body, { exc_type: 'ActionFrozen', action: 'like', frozen_until: String });
  const retryAfter = Number(refused.headers.get('retry-after'));
  t.ok(retryAfter > BLOCK_SECONDS - 5 && retryAfter <= BLOCK_SECONDS, `Retry-After ${retryAfter} is what is left of the freeze`);
  t.equal(firstCalls.length, platformCalls, 'the refused like never reached the platform');
  const unlike = await first.http.request('DELETE', '/media/like', { query: { media_id: media }, headers: as });
  t.match(unlike.body, { exc_type: 'ActionFrozen', action: 'like' }, 'an unlike is of the like class too');

  t.equal((await follow(first.http)).status, 200, 'a follow still works');
  t.equal((await first.http.request('GET', '/account', { headers: as })).status, 200, 'a read still works');
  t.equal((await first.http.request('GET', '/user/followers', { query: { user_id: FIXED.demo_2fa }, headers: as })).status, 200, 'another read too');
});

t.test('the freeze is an event, a metric and a console view; the session itself stays active', async (t) => {
  const ref = sessionRef(session);
  const outbox = first.app.partsOf(eventsModule)!.outbox;
  const events = await poll(
    'the freeze event',
    async () => (await outbox.read(ref, 0)).map((entry) => entry.value),
    (list) => list.some((e) => e.type === 'session.state.changed'),
    5000,
  );
  const change = events.find((e) => e.type === 'session.state.changed')!;
  t.match(change.data, { from: 'active', to: 'active', reason: 'FeedbackRequired', action: 'like', frozen_until: String, throttled_until: null });
  const keys = ['account', 'ref', 'from', 'to', 'reason', 'throttled_until', 'action', 'frozen_until'];
  t.same(Object.keys(change.data), keys, "the payload's keys in their order (the policy's declared field after the engine's)");
  t.equal(events.filter((e) => e.type === 'session.state.changed').length, 1, 'one event for one freeze (refusals are no changes)');

  const metrics = await first.http.request('GET', '/metrics');
  t.match(metrics.text, /socialgate_action_freezes_total\{action="like"\} 1\b/);

  const listed = (await first.http.request('GET', '/console/sessions')).body as { sessions: { ref: string; state: string; frozen_classes: string[] }[] };
  t.match(
    listed.sessions.find((s) => s.ref === ref),
    { state: 'active', frozen_classes: ['like'] },
  );
  const record = (await first.app.services.sessions.find(session))!;
  t.same(
    frozenClasses(record).map((f) => f.action),
    ['like'],
    'frozenClasses names the class',
  );
  t.same(frozenClasses(record, record.frozen!.like.until), [], 'and none once the freeze has ended');
});

t.test('the freeze survives a restart: a second app on the same SQLite file refuses likes, follows go on', async (t) => {
  await first.http.close();
  const calls: string[] = [];
  const second = await start(calls); // a fresh sandbox: it would take the like, so the refusal is socialgate's own
  t.teardown(() => second.http.close());
  const refused = await like(second.http);
  t.equal(refused.status, 429);
  t.match(refused.body, { exc_type: 'ActionFrozen', action: 'like' });
  t.notOk(calls.includes('media_like'), 'the platform saw no like');
  t.equal((await follow(second.http)).status, 200, 'a follow works');
  // A settings change answers a new id for the same account: the freeze goes with it (RecordField.carried).
  const moved = await second.http.request('PATCH', '/auth/settings', { form: { locale: 'de_DE' }, headers: as });
  t.equal(moved.status, 200, moved.text);
  const renewed = await second.http.request('POST', '/media/like', { form: { media_id: media }, headers: { 'x-session-id': moved.body as string } });
  t.match(renewed.body, { exc_type: 'ActionFrozen', action: 'like' }, 'a new session id does not lift the freeze');
  t.notOk(calls.includes('media_like'), 'the platform still saw no like');
});

t.test('an account-wide throttle still pauses every class', async (t) => {
  const calls: string[] = [];
  const { http } = await start(calls);
  t.teardown(() => http.close());
  const throttledSession = (await http.request('POST', '/auth/login', { form: { username: 'demo_throttled', password: 'demo-password' } })).body as string;
  const headers = { 'x-session-id': throttledSession };
  t.match((await http.request('POST', '/media/like', { form: { media_id: media }, headers })).body, { exc_type: 'PleaseWaitFewMinutes' });
  t.match((await http.request('POST', '/user/follow', { form: { user_id: FIXED.demo_2fa }, headers })).body, { exc_type: 'SessionThrottled' });
  t.match((await http.request('GET', '/account', { headers })).body, { exc_type: 'SessionThrottled' });
});

t.test('a job whose class is frozen pauses until the freeze ends, and does not fail', async (t) => {
  const calls: string[] = [];
  const { app, http } = await start(calls);
  t.teardown(() => http.close());
  const reader = (await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
  const record = (await app.services.sessions.find(reader))!;
  const until = Date.now() + 60_000;
  await app.services.sessions.update(record, { frozen: { read: { until, seconds: 60 } } }, 'FeedbackRequired');
  const started = await http.request('POST', '/jobs', {
    form: { route: 'GET /user/followers', params: JSON.stringify({ user_id: FIXED.demo, amount: 10 }) },
    headers: { 'x-session-id': reader },
  });
  t.equal(started.status, 202, started.text);
  const id = (started.body as { id: string }).id;
  type Job = { state: string; pages: number; paused?: { reason: string; until: number } };
  const job = await poll(
    'the job paused',
    async () => (await http.request('GET', '/jobs/status', { query: { id } })).body as Job,
    (j) => j.state !== 'running' && j.state !== 'queued',
    10_000,
  );
  t.match(job, { state: 'paused', pages: 0, paused: { reason: 'frozen' } });
  t.ok(Math.abs(job.paused!.until - until) < 2000, 'until the freeze ends');
  t.notOk(calls.includes('user_followers_v1_chunk'), 'no page reached the platform');
});

t.test('how long a freeze lasts: the hint, else a back-off doubled on a repeat within a day, up to a day', async (t) => {
  const now = 1_800_000_000_000;
  const cases: [string, Parameters<typeof nextFreeze>[0], number | undefined, number][] = [
    ['a hint wins', undefined, 120, 120],
    ['no hint: the back-off', undefined, undefined, 3600],
    ['a repeat within a day doubles', { until: now - 3_600_000, seconds: 3600 }, undefined, 7200],
    ['never past a day', { until: now - 1000, seconds: 60_000 }, undefined, 86_400],
    ['a day after the last one ended: the back-off again', { until: now - 86_400_000, seconds: 7200 }, undefined, 3600],
  ];
  for (const [name, previous, hint, seconds] of cases) t.same(nextFreeze(previous, hint, 3600, now), { until: now + seconds * 1000, seconds }, name);
});
