// The console's routes over HTTP (the browser test drives the page): the key's cookie and what it
// opens, the session list (every session, its state and use, never a secret), the actions on a
// session by ref, health by family from the service's own metrics, and the live event stream.
import t, { type Test } from 'tap';
import { createAjv, forAjv } from '../../../engine/validate.js';
import type { JsonSchema } from '../../../engine/types.js';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { consoleToken } from '../../../plugins/console/assets.js';
import { serve, stringBody, type Client } from '../../helpers/http.js';

const KEY = 'console-key-for-tests-0123456789';
const app = await composeApp(testConfig({ apiKey: KEY, extra: { JOB_INTERVAL_MS: '0' } }));
const http = await serve(app);
const ajv = createAjv(app.manifest);
/** Whether an answer matches the schema its route documents (the OpenAPI document's). */
function documented(t: Test, key: string, body: unknown): void {
  const route = app.manifest.routes.find((r) => r.key === key)!;
  const check = ajv.compile(forAjv(route.result.schema) as JsonSchema);
  t.ok(check(body), `${key} answers as documented${check.errors ? `: ${ajv.errorsText(check.errors.slice(0, 3))}` : ''}`);
}
t.teardown(() => http.close());
const keyed = { 'x-api-key': KEY };
const as = (sid: string) => ({ ...keyed, 'x-session-id': sid });
const login = async (username: string, extra: Record<string, string> = {}) =>
  stringBody(await http.request('POST', '/auth/login', { form: { username, password: 'demo-password', ...extra }, headers: keyed }));

interface Listed {
  ref: string;
  account: { username: string };
  state: string;
  throttled_until: string | null;
  proxy_host: string | null;
  usage: Record<string, { requests: number; errors: number }>;
  pools: string[];
}
const listed = async (headers: Record<string, string> = keyed) => {
  const reply = await http.request('GET', '/console/sessions', { headers });
  return { reply, sessions: (reply.body as { sessions: Listed[] }).sessions };
};
const find = async (username: string) => (await listed()).sessions.find((s) => s.account.username === username)!;

t.test('the page is open; its data needs the key, given once through a cookie', async (t) => {
  const page = await http.request('GET', '/console');
  t.equal(page.status, 200, 'the page itself is open (it asks for the key)');
  t.match(page.headers.get('content-type'), /text\/html/);
  t.match(page.text, /importmap/, 'the built page, with its import map');
  for (const asset of ['/console/assets/app.js', '/console/assets/vendor/preact.mjs', '/console/assets/vendor/htm-preact.mjs']) {
    const reply = await http.request('GET', asset);
    t.equal(reply.status, 200, `${asset} served without the key`);
    t.match(reply.headers.get('content-type'), /javascript/);
  }
  t.match(await http.request('GET', '/console/sessions'), { status: 401, body: { exc_type: 'ApiKeyRequired' } }, 'no key, no list');
  const wrong = await http.request('POST', '/console/key', { form: { key: 'not-the-key' } });
  t.match(wrong, { status: 401, body: { exc_type: 'ApiKeyWrong' } });
  t.notOk(wrong.headers.get('set-cookie'), 'a wrong key sets nothing');
  t.match(await http.request('POST', '/console/key', { form: {} }), { status: 422, body: { errors: [{ param: 'key' }] } }, 'a missing key is named');

  const right = await http.request('POST', '/console/key', { form: { key: KEY } });
  t.match(right, { status: 200, body: { required: true } });
  const cookie = right.headers.get('set-cookie') ?? '';
  t.match(cookie, /HttpOnly/i, 'script cannot read it');
  t.match(cookie, /SameSite=Strict/i, 'no other site sends it');
  t.notOk(cookie.includes(KEY), 'the cookie holds a proof of the key, not the key');
  const jar = { cookie: cookie.split(';')[0] };
  t.equal((await http.request('GET', '/console/sessions', { headers: jar })).status, 200, 'the cookie opens the reads');
  t.equal(
    (await http.request('GET', '/account', { headers: jar })).status,
    401,
    'and the API behind the console: a session is still needed (401 from the session, not the key)',
  );
  const sid = await login('demo');
  const { ref } = await find('demo');
  t.match(
    await http.request('DELETE', '/console/sessions/throttle', { form: { ref }, headers: jar }),
    { status: 401, body: { exc_type: 'ApiKeyRequired' } },
    'a change needs the console header besides the cookie',
  );
  t.equal(
    (await http.request('DELETE', '/console/sessions/throttle', { form: { ref }, headers: { ...jar, 'x-socialgate-console': '1' } })).status,
    200,
    'with it, the change is made',
  );
  const soon = Math.floor(Date.now() / 1000) + 600;
  t.equal(
    (await http.request('GET', '/console/sessions', { headers: { cookie: `socialgate_console=${consoleToken('another-key', soon)}` } })).status,
    401,
    'a proof of another key opens nothing',
  );
  t.equal(
    (await http.request('GET', '/console/sessions', { headers: { cookie: `socialgate_console=${consoleToken(KEY, Math.floor(Date.now() / 1000) - 1)}` } }))
      .status,
    401,
    'a proof past its end opens nothing',
  );
  t.equal(
    (await http.request('GET', '/console/sessions', { headers: { cookie: `socialgate_console=${consoleToken(KEY, soon)}` } })).status,
    200,
    'a current proof of this key does',
  );
  t.equal((await http.request('GET', '/console/sessions', { headers: { cookie: `socialgate_console=${soon}.forged` } })).status, 401, 'a forged one does not');
  const closed = await http.request('DELETE', '/console/key', { headers: { ...jar, 'x-socialgate-console': '1' } });
  t.match(closed.headers.get('set-cookie'), /socialgate_console=;/, 'closing clears the cookie');
  await http.request('DELETE', '/console/sessions', { form: { ref }, headers: keyed });
  void sid;
});

t.test('guessing the key through the form is slowed down', async (t) => {
  const guarded = await serve(await composeApp(testConfig({ apiKey: KEY })));
  t.teardown(() => guarded.close());
  for (let i = 0; i < 10; i++) t.equal((await guarded.request('POST', '/console/key', { form: { key: `guess-${i}` } })).status, 401);
  const limited = await guarded.request('POST', '/console/key', { form: { key: KEY } });
  t.match(limited, { status: 429, body: { exc_type: 'ApiKeyAttemptsExceeded' } }, 'after ten wrong keys in a minute, even the right one waits');
  t.ok(Number(limited.headers.get('retry-after')) > 0, 'Retry-After');
  // The same rule for every path (issue 22): the address that guessed waits, whatever key it sends now.
  t.equal((await guarded.request('GET', '/console/health', { headers: { 'x-api-key': KEY } })).status, 429, 'the same address waits on the API too');
});

t.test('without an API key the console is as open as the API', async (t) => {
  const open = await serve(await composeApp(testConfig()));
  t.teardown(() => open.close());
  const reply = await open.request('POST', '/console/key', { form: { key: 'anything' } });
  t.match(reply, { status: 200, body: { required: false } });
  t.notOk(reply.headers.get('set-cookie'), 'no cookie to set');
  t.equal((await open.request('GET', '/console/sessions')).status, 200);
});

t.test('every session with its state, use by family and proxy host; never a secret', async (t) => {
  const demo = await login('demo', { proxy: 'http://proxyuser:proxypass@proxy.example:8080' });
  await http.request('GET', '/user', { query: { username: 'demo' }, headers: as(demo) });
  await http.request('GET', '/user', { query: { username: 'nobody_at_all_zz' }, headers: as(demo) });
  await http.request('GET', '/media', { query: { media_pk: '1' }, headers: as(demo) });
  const throttled = await login('demo_throttled');
  t.equal((await http.request('GET', '/account', { headers: as(throttled) })).status, 429, 'demo_throttled is throttled by its first call');
  const { reply, sessions } = await listed();
  documented(t, 'GET /console/sessions', reply.body);
  const row = sessions.find((s) => s.account.username === 'demo')!;
  t.equal(row.state, 'active');
  t.equal(row.proxy_host, 'proxy.example:8080', 'the proxy host, no credentials');
  t.same(row.usage.user, { requests: 2, errors: 1 }, 'user family: two requests, one failed');
  t.equal(row.usage.media?.requests, 1, 'media family counted apart');
  const slow = sessions.find((s) => s.account.username === 'demo_throttled')!;
  t.equal(slow.state, 'throttled');
  t.ok(slow.throttled_until && Date.parse(slow.throttled_until) > Date.now(), 'with the end of its pause');
  t.match(row.ref, /^[A-Za-z0-9_-]{22}$/);
  for (const secret of [demo, throttled, 'proxypass', 'proxyuser', 'demo-password', 'sessionid', 'cookies'])
    t.notOk(reply.text.includes(secret), `the list never holds ${secret.slice(0, 6)}…`);
});

t.test('actions by ref: clear a throttle, relogin, revoke', async (t) => {
  const throttled = await login('demo_throttled');
  await http.request('GET', '/account', { headers: as(throttled) });
  const before = (await listed()).sessions.find((s) => s.account.username === 'demo_throttled' && s.state === 'throttled')!;
  const cleared = await http.request('DELETE', '/console/sessions/throttle', { form: { ref: before.ref }, headers: keyed });
  t.match(cleared, { status: 200, body: { state: 'active', throttled_until: null } });
  documented(t, 'DELETE /console/sessions/throttle', cleared.body);
  const next = await http.request('GET', '/account', { headers: as(throttled) });
  t.equal(next.status, 429, 'the next call reaches the platform again (which throttles again)');
  t.not(next.body && (next.body as { exc_type: string }).exc_type, 'SessionThrottled', 'answered by the platform, not by the governor');

  const demo = await login('demo');
  const ref = (await listed()).sessions.find((s) => s.state === 'active' && s.account.username === 'demo')!.ref;
  t.match(
    await http.request('POST', '/console/sessions/relogin', { form: { ref }, headers: keyed }),
    { status: 200, body: { ref, state: 'active' } },
    'relogin',
  );
  t.equal((await http.request('GET', '/account', { headers: as(demo) })).status, 200, 'the session works after its relogin');
  t.match(await http.request('DELETE', '/console/sessions', { form: { ref }, headers: keyed }), { status: 200, body: true }, 'revoke');
  t.equal((await http.request('GET', '/account', { headers: as(demo) })).status, 401, 'a revoked session answers 401');
  t.notOk(
    (await listed()).sessions.some((s) => s.ref === ref),
    'and leaves the list',
  );
  t.match(
    await http.request('DELETE', '/console/sessions', { form: { ref }, headers: keyed }),
    { status: 404, body: { exc_type: 'ConsoleSessionNotFound' } },
    'an unknown ref is 404',
  );
  t.match(
    await http.request('DELETE', '/console/sessions', { form: { ref: 'short' }, headers: keyed }),
    { status: 422, body: { errors: [{ param: 'ref' }] } },
    'a malformed ref names the parameter',
  );
});

t.test("health by route family from the service's own metrics, and the upstream", async (t) => {
  const demo = await login('demo');
  for (let i = 0; i < 3; i++) await http.request('GET', '/user', { query: { username: 'demo' }, headers: as(demo) });
  const healthReply = await http.request('GET', '/console/health', { headers: keyed });
  documented(t, 'GET /console/health', healthReply.body);
  const health = healthReply.body as {
    window_seconds: number;
    families: { family: string; requests: number; upstream_calls: number; upstream_latency_ms: { mean: number; p95: number } | null }[];
    upstream: { adapter: string; library: string; version: string; emulated: boolean; ready: boolean };
  };
  const user = health.families.find((f) => f.family === 'user')!;
  t.ok(user.requests >= 3 && user.upstream_calls >= 3, `user: ${user.requests} requests, ${user.upstream_calls} upstream calls`);
  t.ok(user.upstream_latency_ms && user.upstream_latency_ms.p95 >= user.upstream_latency_ms.mean, 'latency mean and p95');
  t.ok(health.window_seconds <= 3600, 'over at most the last hour');
  t.match(health.upstream, { adapter: 'sandbox', library: 'aiograpi', version: '1.0.9', emulated: true, ready: true });
});

t.test('live: a login and a throttle arrive on the event stream', async (t) => {
  const events = await eventStream(http, keyed);
  t.teardown(() => events.close());
  const first = await events.next<SessionsEvent>('sessions');
  t.type(first.sessions, Array, 'the list at once on connecting');
  t.ok(await events.next('health'), 'and the health figures');
  const sid = await login('demo_throttled');
  const after = await events.next<SessionsEvent>('sessions', (list) =>
    list.sessions.some((s) => s.account.username === 'demo_throttled' && s.state === 'active' && s.usage && !Object.keys(s.usage).length),
  );
  t.ok(after, 'a new session is pushed');
  t.notOk(events.text().includes(sid), 'the stream never carries a session id');
});

t.test('jobs of every owner, started by ref; pools joined by ref, shown on the session', async (t) => {
  const events = await eventStream(http, keyed);
  t.teardown(() => events.close());
  await login('demo');
  const ref = (await find('demo')).ref;
  const bad = await http.request('POST', '/console/jobs', { form: { route: 'GET /user/followers', params: '{}' }, headers: keyed });
  t.match(bad, { status: 422, body: { exc_type: 'ValidationError' } }, 'a job needs a session or a pool');
  t.match(
    await http.request('POST', '/console/jobs', { form: { ref, route: 'GET /user', params: '{}' }, headers: keyed }),
    { status: 422, body: { errors: [{ param: 'route' }] } },
    'a route that is not paged is named',
  );
  const started = await http.request('POST', '/console/jobs', {
    form: { ref, route: 'GET /user/followers', params: '{"user_id": "5000000001"}', limit: '120' },
    headers: keyed,
  });
  t.match(started, { status: 202, body: { route: 'GET /user/followers', account: { username: 'demo' }, limit: 120 } });
  const id = (started.body as { id: string }).id;
  const done = await events.next<JobsEvent>('jobs', (list) => list.jobs.some((job) => job.id === id && job.state === 'done'), 15_000);
  const job = done.jobs.find((j) => j.id === id)!;
  t.equal(job.items, 120, 'the job collected its limit, pushed on the event stream');
  t.notOk(JSON.stringify(done).includes('"session"'), 'no sealed session in the list');
  const jobsReply = await http.request('GET', '/console/jobs', { headers: keyed });
  documented(t, 'GET /console/jobs', jobsReply.body);
  documented(t, 'POST /console/jobs', started.body);
  const listed = jobsReply.body as { jobs: { id: string }[] };
  t.ok(
    listed.jobs.some((j) => j.id === id),
    'GET /console/jobs lists it',
  );
  const csv = await http.request('GET', '/jobs/results', { query: { id, format: 'csv' }, headers: keyed });
  t.equal(csv.text.trim().split('\n').length, 121, 'its CSV export: a header and 120 rows');

  t.match(await http.request('POST', '/console/pools/members', { form: { ref, name: 'readers' }, headers: keyed }), {
    status: 200,
    body: { name: 'readers', members: [{ username: 'demo' }] },
  });
  t.same((await find('demo')).pools, ['readers'], 'the session shows its pool');
  const pooled = await http.request('POST', '/console/jobs', {
    form: { pool: 'readers', route: 'GET /user/following', params: '{"user_id": "5000000001"}', limit: '10' },
    headers: keyed,
  });
  t.match(pooled, { status: 202, body: { pool: 'readers' } }, 'a job for a pool');
  t.match(
    await http.request('POST', '/console/jobs', {
      form: { pool: 'nobody', route: 'GET /user/following', params: '{"user_id": "5000000001"}' },
      headers: keyed,
    }),
    { status: 404, body: { exc_type: 'PoolNotFound' } },
  );
});

/** The data of the console's events, as far as these tests read it. */
type SessionsEvent = { sessions: Listed[] };
type JobsEvent = { jobs: { id: string; state: string; items: number }[] };

/** Reads server-sent events as they come; next() waits for one that passes the test. */
async function eventStream(client: Client, headers: Record<string, string>) {
  const controller = new AbortController();
  const response = await fetch(`${client.url}/console/events`, { headers, signal: controller.signal });
  if (response.headers.get('content-type')?.startsWith('text/event-stream') !== true) throw new Error(`not an event stream: ${response.status}`);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let all = '';
  const queue: { event: string; data: unknown }[] = [];
  const pull = async () => {
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream ended');
    buffer += value;
    all += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data) queue.push({ event, data: JSON.parse(data) });
    }
  };
  return {
    /** The next `event` whose data passes the test, its data read as T (the caller's expectation of that event). */
    async next<T = unknown>(event: string, test: (data: T) => boolean = () => true, ms = 5000): Promise<T> {
      const deadline = Date.now() + ms;
      for (;;) {
        const index = queue.findIndex((e) => e.event === event && test(e.data as T));
        if (index >= 0) return queue.splice(index, 1)[0].data as T;
        queue.splice(0, queue.length, ...queue.filter((e) => e.event !== event));
        if (Date.now() > deadline) throw new Error(`no ${event} event within ${ms} ms`);
        await pull();
      }
    },
    text: () => all,
    close: () => controller.abort(),
  };
}

t.test('a session is named by its label, and its state is the state now', async (t) => {
  const sid = await login('demo_throttled');
  const ref = (await listed()).sessions.find((s) => s.account.username === 'demo_throttled' && s.state === 'active')!.ref;
  const named = await http.request('POST', '/console/sessions/label', { form: { ref, label: '  phone 7 ' }, headers: keyed });
  t.equal(named.status, 200, named.text);
  documented(t, 'POST /console/sessions/label', named.body);
  t.equal((named.body as { label: string }).label, 'phone 7', 'the label, trimmed');
  t.equal(
    (await http.request('POST', '/console/sessions/label', { form: { ref, label: 'x'.repeat(65) }, headers: keyed })).status,
    422,
    'at most 64 characters',
  );
  t.equal((await http.request('GET', '/account', { headers: as(sid) })).status, 429, 'its call is throttled');
  const record = (await app.services.sessions.find(sid))!;
  t.equal(record.state, 'throttled');
  await app.services.sessions.update(record, { throttledUntil: Date.now() - 1000 }, 'test');
  const now = (await listed()).sessions.find((s) => s.ref === ref) as Listed & { label: string; frozen_classes: string[] };
  t.match(now, { state: 'active', throttled_until: null, label: 'phone 7', frozen_classes: [] }, 'a throttle whose pause ended reads active');
  const cleared = await http.request('POST', '/console/sessions/label', { form: { ref, label: '' }, headers: keyed });
  t.equal((cleared.body as { label: string | null }).label, null, 'an empty label removes it');
});
