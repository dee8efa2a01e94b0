// Jobs and pools in process, on the sandbox. Job kinds come from the manifest; a job
// collects a list whole, each item once; the exports agree with each other (the CSV parsed by a CSV
// library); a throttled session pauses the job without calling the platform and it resumes on its
// own; a pool job finishes on its healthy member; read routes take X-Pool; no healthy member is a
// 429 or 503 with Retry-After.
import t from 'tap';
import { parse } from 'csv-parse/sync';
import { authenticator } from 'otplib';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { UpstreamError, type Config, type WorkEvent } from '../../../engine/types.js';
import { createSandbox, FIXED, PASSWORD, TOTP_SEED } from '../../../adapters/upstream/sandbox/index.js';
import { cell } from '../../../plugins/jobs/export.js';
import { serve, type Client } from '../../helpers/http.js';
import { probeUpstream } from '../../support/probe-upstream.js';
import { sleep } from '../../support/process.js';
import { untilJob } from '../../helpers/poll.js';

const sandbox = createSandbox({ seed: 1 });
const probe = probeUpstream(sandbox);
const config: Partial<Config> = { throttleBackoffSeconds: 1, sessionCacheTtlMs: 0, extra: { JOB_INTERVAL_MS: '0', JOB_RECHECK_MS: '300' } };
const app = await composeApp(testConfig(config), { upstream: probe.adapter });
const http: Client = await serve(app);
t.teardown(() => http.close());

async function login(username: string, code?: string): Promise<string> {
  const form: Record<string, string> = { username, password: PASSWORD };
  if (code) form.verification_code = code;
  const reply = await http.request('POST', '/auth/login', { form });
  if (reply.status !== 200) throw new Error(`login ${username}: ${reply.status} ${reply.text}`);
  return reply.body as string;
}
const demo = await login('demo');
// What the jobs emit, seen at the events port (whatever outbox is behind it).
const emitted: WorkEvent[] = [];
const outbox = app.services.work!.events;
app.services.work!.events = { emit: (event) => (emitted.push(event), outbox.emit(event)) };
const as = (session: string) => ({ 'x-session-id': session });

type Job = { id: string; state: string; items: number; pages: number; paused?: { reason: string; until: number }; rate: number; eta_seconds: number | null };

async function start(form: Record<string, unknown>, headers: Record<string, string> = as(demo)): Promise<Job> {
  const reply = await http.request('POST', '/jobs', { form, headers });
  if (reply.status !== 202) throw new Error(`POST /jobs answered ${reply.status}: ${reply.text}`);
  return reply.body as Job;
}
const status = async (id: string) => (await http.request('GET', '/jobs/status', { query: { id } })).body as Job;
const until = (id: string, wanted: (job: Job) => boolean, ms?: number): Promise<Job> => untilJob(http, id, wanted, ms);
const results = async (id: string, format: string) => (await http.request('GET', '/jobs/results', { query: { id, format } })).text;
const ndjson = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

t.test('every paged route of the manifest is a job kind, and no other route is', async (t) => {
  const kinds = (await http.request('GET', '/jobs/kinds')).body as { route: string; cursor_param: string; key: string | null }[];
  const expected = app.manifest.routes
    .filter((r) => r.method === 'GET' && ['page', 'stream_page'].includes(r.result.shape))
    .map((r) => r.key)
    .sort();
  t.same(kinds.map((k) => k.route).sort(), expected, `${expected.length} kinds, one per paged route`);
  t.match(
    kinds.find((k) => k.route === 'GET /user/followers'),
    { cursor_param: 'cursor', key: 'pk' },
  );
  t.match(
    kinds.find((k) => k.route === 'GET /media/comments/stream'),
    { cursor_param: 'max_id', key: 'pk' },
  );
  const refused = await http.request('POST', '/jobs', { form: { route: 'GET /user/info', params: '{}' }, headers: as(demo) });
  t.match(refused, { status: 422, body: { errors: [{ param: 'route' }] } }, 'a route that is not paged is refused, naming the parameter');
  const bad = await http.request('POST', '/jobs', { form: { route: 'GET /user/followers', params: '{"amount": "lots"}' }, headers: as(demo) });
  t.equal(bad.status, 422);
  t.same(
    (bad.body as { errors: { param: string }[] }).errors.map((e) => e.param).sort(),
    ['amount', 'user_id'],
    "the route's own validation runs at once, naming its parameters",
  );
  t.equal(
    (await http.request('POST', '/jobs', { form: { route: 'GET /user/followers', params: '{"user_id": "1"}' } })).status,
    401,
    'a job needs a session or a pool',
  );
});

t.test('a whole list, each item once; NDJSON, CSV and JSON agree', async (t) => {
  const target = sandbox.world.users.get(FIXED.demo)!;
  const job = await start({ route: 'GET /user/followers', params: JSON.stringify({ user_id: FIXED.demo, amount: 7 }) });
  t.equal(job.state, 'queued');
  const done = await until(job.id, (j) => j.state === 'done');
  const rows = ndjson(await results(job.id, 'ndjson'));
  const pks = rows.map((r) => String(r.pk));
  t.equal(new Set(pks).size, pks.length, 'no duplicates');
  t.same(new Set(pks), target.followers, `all ${target.followers.size} followers`);
  t.equal(done.items, target.followers.size, 'the count matches');
  t.equal(done.pages, Math.ceil(target.followers.size / 7), 'pages of the size asked for');
  t.same(JSON.parse(await results(job.id, 'json')), rows, 'the JSON array holds the same items in the same order');
  const csv = parse(await results(job.id, 'csv'), { columns: true }) as Record<string, string>[];
  t.equal(csv.length, rows.length, 'one CSV row per item');
  const columns = Object.keys(csv[0]);
  t.ok(columns.includes('pk') && columns.includes('username'), 'a header row from the item schema');
  t.same(
    csv,
    rows.map((row) => Object.fromEntries(columns.map((c) => [c, cell(row, c)]))),
    "each CSV row is its NDJSON item's fields",
  );
  t.match(
    emitted.filter((e) => e.data.job_id === job.id),
    [{ type: 'job.completed', id: `job.completed:${job.id}`, data: { items: done.items } }],
    'job.completed emitted once',
  );
  const listed = (await http.request('GET', '/jobs', { headers: as(demo) })).body as Job[];
  t.ok(
    listed.some((j) => j.id === job.id),
    'GET /jobs lists it for the session',
  );
});

t.test('a limit stops the job; DELETE cancels one; an unknown id is a 404', async (t) => {
  const limited = await start({ route: 'GET /user/following', params: JSON.stringify({ user_id: FIXED.demo, amount: 10 }), limit: 25 });
  const done = await until(limited.id, (j) => j.state === 'done');
  t.equal(done.items, 25);
  t.equal(ndjson(await results(limited.id, 'ndjson')).length, 25);
  probe.latency.set('user_followers_v1_chunk', 100);
  const slow = await start({ route: 'GET /user/followers', params: JSON.stringify({ user_id: FIXED.demo, amount: 5 }) });
  await until(slow.id, (j) => j.pages >= 1);
  const cancelled = await http.request('DELETE', '/jobs', { form: { id: slow.id } });
  t.match(cancelled, { status: 200, body: { state: 'cancelled' } });
  await sleep(300);
  const after = await status(slow.id);
  t.equal(after.state, 'cancelled', 'stays cancelled');
  const pagesThen = after.pages;
  await sleep(300);
  t.equal((await status(slow.id)).pages, pagesThen, 'no page after the cancel');
  probe.latency.delete('user_followers_v1_chunk');
  t.equal((await http.request('GET', '/jobs/status', { query: { id: 'nosuchjob123' } })).status, 404);
});

t.test('a throttle pauses the job with no upstream call until the governor allows, then it resumes', async (t) => {
  const session = await login('demo');
  const calls = () => probe.count('user_followers_v1_chunk');
  probe.latency.set('user_followers_v1_chunk', 20);
  const job = await start({ route: 'GET /user/followers', params: JSON.stringify({ user_id: FIXED.demo, amount: 10 }) }, as(session));
  await until(job.id, (j) => j.pages >= 2);
  probe.failNext('user_followers_v1_chunk', new UpstreamError('PleaseWaitFewMinutes', 'Please wait a few minutes before you try again.'));
  const paused = await until(job.id, (j) => j.state === 'paused');
  t.equal(paused.paused?.reason, 'throttled', 'paused, saying why');
  t.match(
    emitted.filter((e) => e.data.job_id === job.id && e.type === 'job.paused'),
    [{ data: { reason: 'throttled' } }],
    'job.paused emitted',
  );
  t.ok(paused.paused!.until > Date.now(), 'and until when');
  const during = calls();
  const interactive = await http.request('GET', '/user/followers', { query: { user_id: FIXED.demo }, headers: as(session) });
  t.equal(interactive.status, 429, 'the governor answers interactive calls too');
  await sleep(Math.max(0, paused.paused!.until - Date.now() - 100));
  t.equal(calls(), during, 'no upstream call while the governor holds the session');
  const done = await until(job.id, (j) => j.state === 'done', 10_000);
  t.ok(calls() > during, 'it resumed on its own');
  const pks = ndjson(await results(job.id, 'ndjson')).map((r) => r.pk);
  t.equal(new Set(pks).size, pks.length, 'no duplicates across the pause');
  t.equal(done.items, sandbox.world.users.get(FIXED.demo)!.followers.size, 'and no gaps');
  probe.latency.delete('user_followers_v1_chunk');
});

t.test('pools: a job finishes on the healthy member; reads take X-Pool; none healthy is 429/503 with Retry-After', async (t) => {
  const healthy = await login('demo');
  const throttled = await login('demo_throttled');
  const challenged = await login('demo_2fa', authenticator.generate(TOTP_SEED));
  // the platform throttles demo_throttled: the governor records it on the first call
  t.equal((await http.request('GET', '/user', { query: { user_id: FIXED.demo }, headers: as(throttled) })).status, 429);
  const record = (await app.services.sessions.find(challenged))!;
  await app.services.sessions.update(record, { state: 'challenge' }); // as the governor records a ChallengeRequired
  const created = await http.request('POST', '/pools', { form: { name: 'readers', sessions: [healthy, throttled, challenged] } });
  t.equal(created.status, 200, created.text);
  t.notMatch(created.text, healthy, 'no session id in the answer');
  const states = Object.fromEntries((created.body as { members: { username: string; state: string }[] }).members.map((m) => [m.username, m.state]));
  t.same(states, { demo: 'healthy', demo_throttled: 'cooling', demo_2fa: 'quarantined' });

  const byPool = await http.request('GET', '/user', { query: { user_id: FIXED.demo }, headers: { 'x-pool': 'readers' } });
  t.equal(byPool.status, 200, 'a read route answers through the pool');
  t.equal(
    (await http.request('POST', '/user/follow', { form: { user_id: FIXED.demo }, headers: { 'x-pool': 'readers' } })).status,
    422,
    'a mutation may not name a pool',
  );
  const job = await start({ route: 'GET /user/following', params: JSON.stringify({ user_id: FIXED.demo }), pool: 'readers' }, {});
  const done = await until(job.id, (j) => j.state === 'done');
  t.equal(done.items, sandbox.world.users.get(FIXED.demo)!.following.size, 'the pool job finished');
  t.ok(
    ((await http.request('GET', '/jobs', { query: { pool: 'readers' } })).body as Job[]).some((j) => j.id === job.id),
    'listed under the pool',
  );

  t.equal((await http.request('DELETE', '/pools/members', { form: { name: 'readers', member: 'demo' } })).status, 200);
  const cooling = await http.request('GET', '/user', { query: { user_id: FIXED.demo }, headers: { 'x-pool': 'readers' } });
  t.match(cooling, { status: 429, body: { exc_type: 'PoolThrottled' } }, 'only a throttled and a challenged member left: 429');
  t.ok(Number(cooling.headers.get('retry-after')) >= 1, 'with Retry-After');
  const before = probe.calls.length;
  await http.request('DELETE', '/pools/members', { form: { name: 'readers', member: FIXED.demo_throttled } });
  const none = await http.request('GET', '/user', { query: { user_id: FIXED.demo }, headers: { 'x-pool': 'readers' } });
  t.match(none, { status: 503, body: { exc_type: 'PoolUnavailable' } }, 'only a quarantined member: 503');
  t.ok(Number(none.headers.get('retry-after')) >= 1, 'with Retry-After');
  t.equal(probe.calls.length, before, 'no call reached a member in trouble');
  const metrics = (await http.request('GET', '/metrics')).text;
  t.match(metrics, /socialgate_pool_members\{pool="readers",state="quarantined"\} 1/, '/metrics counts members per state');
  t.equal((await http.request('GET', '/user', { query: { user_id: FIXED.demo }, headers: { 'x-pool': 'nosuch' } })).status, 404, 'an unknown pool is a 404');
  t.equal((await http.request('DELETE', '/pools', { form: { name: 'readers' } })).status, 200);
});
