// Every job, webhook endpoint and pool has an owner (the session's account and the
// API key that made it); a caller sees and changes only its own unless its key has the operator
// scope (and no session: a session narrows a request to its account). The table runs every route
// the manifest marks `owns` (so a new route is covered) for a second account's session, a key
// without the operator scope and no identity at all, then for the owner and the operator.
import t from 'tap';
import { authenticator } from 'otplib';
import { composeApp } from '../../bin/compose.js';
import { testConfig } from '../../engine/config.js';
import type { RouteSpec } from '../../engine/types.js';
import { sessionRef } from '../../engine/session-record.js';
import { PASSWORD, TOTP_SEED } from '../../adapters/upstream/sandbox/index.js';
import { serve, stringBody, type Reply } from '../helpers/http.js';

const LEGACY = 'legacy-key-for-tests-0123456789';
const extra = { JOB_INTERVAL_MS: '60000', FETCH_ALLOW: '127.0.0.1', WATCH_FLOOR_SECONDS: '1' };
const app = await composeApp(testConfig({ apiKey: LEGACY, sessionCacheTtlMs: 0, extra }));
const http = await serve(app);
t.teardown(() => http.close());

const { ring } = app.services.keys;
const keyOf = async (name: string, more: { pools?: string[] } = {}) => ({ 'x-api-key': (await ring.add({ name, scopes: ['read', 'write'], ...more })).key });
const agent = await keyOf('agent');
const other = await keyOf('other');
const poolReader = await keyOf('pool-reader', { pools: ['team'] });
const operator = { 'x-api-key': LEGACY };

async function login(username: string): Promise<string> {
  const form: Record<string, string> = { username, password: PASSWORD };
  if (username === 'demo_2fa') form.verification_code = authenticator.generate(TOTP_SEED);
  return stringBody(await http.request('POST', '/auth/login', { form, headers: agent }));
}
const demo = await login('demo');
const demo2 = await login('demo_2fa');
const owner = { ...agent, 'x-session-id': demo };

async function ok(reply: Promise<Reply>, what: string): Promise<Record<string, unknown>> {
  const answered = await reply;
  if (answered.status >= 300) throw new Error(`${what}: ${answered.status} ${answered.text}`);
  return answered.body as Record<string, unknown>;
}
const job = await ok(
  http.request('POST', '/jobs', { form: { route: 'GET /user/followers', params: '{"user_id": "5000000100"}', limit: 1000 }, headers: owner }),
  'POST /jobs',
);
const hook = await ok(http.request('POST', '/webhooks', { form: { url: 'http://127.0.0.1:9/hook' }, headers: owner }), 'POST /webhooks');
await ok(http.request('POST', '/pools', { form: { name: 'team', sessions: [demo] }, headers: owner }), 'POST /pools');
await ok(http.request('POST', '/events/watch', { form: { interval_seconds: 60 }, headers: owner }), 'POST /events/watch');
const later = new Date(Date.now() + 3_600_000).toISOString();
const write = await ok(
  http.request('POST', '/direct/message', { form: { text: 'later', user_ids: '5000000100', publish_at: later }, headers: owner }),
  'a scheduled message',
);

const owned = app.manifest.routes.filter((route) => route.owns);
const NOT_FOUND = { job: 'JobNotFound', webhook: 'WebhookNotFound', pool: 'PoolNotFound', write: 'ResourceNotFound' } as const;

/** The route's request naming the owner's resource, with the other required parameters filled. */
function requestFor(route: RouteSpec, session: string): { query?: Record<string, unknown>; form?: Record<string, unknown> } {
  const values: Record<string, unknown> = { event_id: 'evt_none', session_id: session, member: 'demo' };
  const ids = { job: job.id, webhook: hook.id, write: write.id, pool: 'team' };
  values[route.owns === 'pool' ? 'name' : 'id'] = ids[route.owns!];
  const given = Object.fromEntries(route.params.filter((p) => p.required).map((p) => [p.name, values[p.name] ?? p.example]));
  return route.method === 'GET' || route.method === 'DELETE' ? { query: given } : { form: given };
}

t.test('the manifest marks every route that names a job, an endpoint, a pool or a scheduled write', async (t) => {
  const names = (route: RouteSpec) => route.params.some((p) => p.name === (route.area === 'pools' ? 'name' : 'id'));
  const expected = app.manifest.routes.filter((r) => ['jobs', 'webhooks', 'pools', 'writes'].includes(r.area) && names(r) && r.key !== 'POST /pools');
  t.same(owned.map((r) => r.key).sort(), expected.map((r) => r.key).sort());
  t.ok(owned.length >= 13, `${owned.length} routes`);
});

const outsiders: [string, Record<string, string>][] = [
  ["a second account's session (same key)", { ...agent, 'x-session-id': demo2 }],
  ["a second account's session with the operator key", { ...operator, 'x-session-id': demo2 }],
  ['a key without the operator scope, no session', other],
];

t.test("outsiders: another owner's id answers 404, never 403", async (t) => {
  for (const route of owned) {
    for (const [who, headers] of outsiders) {
      const reply = await http.request(route.method, route.path, { ...requestFor(route, demo2), headers });
      t.match(reply, { status: 404, body: { exc_type: NOT_FOUND[route.owns!] } }, `${route.key}: ${who}`);
    }
    t.match(
      await http.request(route.method, route.path, requestFor(route, demo2)),
      { status: 401, body: { exc_type: 'ApiKeyRequired' } },
      `${route.key}: no identity at all`,
    );
  }
  const view = await ok(http.request('GET', '/jobs/status', { query: { id: job.id }, headers: owner }), 'status');
  t.not(view.state, 'cancelled', 'the job still runs');
  t.match(
    await ok(http.request('GET', '/writes/scheduled/item', { query: { id: write.id }, headers: owner }), 'scheduled write'),
    { state: 'scheduled' },
    'the scheduled write still waits',
  );
  const hooks = (await ok(http.request('GET', '/webhooks', { headers: owner }), 'webhooks')) as unknown as Record<string, unknown>[];
  t.match(hooks, [{ id: hook.id, rotating_until: null, disabled: null }], 'the endpoint was neither rotated nor changed');
  const pools = (await ok(http.request('GET', '/pools', { headers: owner }), 'pools')) as unknown as { members: unknown[] }[];
  t.match(pools, [{ name: 'team', members: [{ username: 'demo' }] }], 'the pool kept its member');
});

t.test("outsiders' lists leave out what is not theirs", async (t) => {
  for (const [who, headers] of outsiders) {
    t.notOk((await http.request('GET', '/webhooks', { headers })).text.includes(String(hook.id)), `GET /webhooks: ${who}`);
    t.notOk((await http.request('GET', '/pools', { headers })).text.includes('team'), `GET /pools: ${who}`);
    t.notOk((await http.request('GET', '/writes/scheduled', { headers })).text.includes(String(write.id)), `GET /writes/scheduled: ${who}`);
  }
  t.notOk(
    (await http.request('GET', '/jobs', { headers: { ...agent, 'x-session-id': demo2 } })).text.includes(String(job.id)),
    'GET /jobs of the second account',
  );
  t.match(await http.request('GET', '/jobs', { query: { pool: 'team' }, headers: other }), { status: 404, body: { exc_type: 'PoolNotFound' } });
  t.match(
    await http.request('POST', '/pools', { form: { name: 'team' }, headers: other }),
    { status: 409, body: { exc_type: 'PoolNameTaken' } },
    'a taken pool name is refused, not joined',
  );
});

t.test("X-Pool and a job's pool need a caller entitled to the pool", async (t) => {
  const read = (headers: Record<string, string>) => http.request('GET', '/account', { headers: { ...headers, 'x-pool': 'team' } });
  t.match(await read(other), { status: 404, body: { exc_type: 'PoolNotFound' } }, 'another key');
  t.equal((await read({})).status, 401, 'no key');
  t.equal((await read(agent)).status, 200, 'the key that made it');
  t.equal((await read(poolReader)).status, 200, 'a key that names the pool');
  t.equal((await read(operator)).status, 200, 'the operator');
  t.match(await http.request('POST', '/jobs', { form: { route: 'GET /user/followers', params: '{"user_id": "5000000100"}', pool: 'team' }, headers: other }), {
    status: 404,
    body: { exc_type: 'PoolNotFound' },
  });
  t.equal(
    (await http.request('GET', '/jobs/status', { query: { id: job.id }, headers: { ...agent, 'x-pool': 'team' } })).status,
    200,
    'X-Pool does not stand in for the caller on owned routes',
  );
});

t.test('a webhook is filtered only on sessions its creator owns', async (t) => {
  const url = 'http://127.0.0.1:9/other';
  const filtered = (sessions: string[], headers: Record<string, string>) => http.request('POST', '/webhooks', { form: { url, sessions }, headers });
  t.match(
    await filtered([sessionRef(demo)], { ...agent, 'x-session-id': demo2 }),
    { status: 422, body: { errors: [{ param: 'sessions' }] } },
    "by another account's ref",
  );
  t.match(
    await filtered([demo], { ...other, 'x-session-id': demo2 }),
    { status: 422, body: { errors: [{ param: 'sessions' }] } },
    "by another account's session id",
  );
  t.match(
    await filtered([], other),
    { status: 422, body: { errors: [{ param: 'sessions', problem: /operator/ }] } },
    "every session's events are the operator's alone",
  );
  const mine = await ok(filtered([], { ...agent, 'x-session-id': demo2 }), 'own');
  t.same(mine.sessions, [sessionRef(demo2)], 'with a session and no filter, its own session');
  t.equal((await filtered([sessionRef(demo)], operator)).status, 200, 'the operator may filter on any');
});

t.test("the watch is the session's own", async (t) => {
  const seen = await http.request('GET', '/events/watch', { headers: { ...agent, 'x-session-id': demo2 } });
  t.ok(seen.status === 404 || (seen.body as { watching?: boolean }).watching === false, 'the second account sees no watch of demo');
  await http.request('DELETE', '/events/watch', { headers: { ...agent, 'x-session-id': demo2 } });
  t.match(await ok(http.request('GET', '/events/watch', { headers: owner }), 'watch'), { watching: true }, "demo's watch goes on");
});

t.test('the owner and the operator reach every route', async (t) => {
  const destructive = (route: RouteSpec) => route.method === 'DELETE';
  const reached = (reply: Reply) => reply.status < 300 || (reply.status === 404 && (reply.body as { exc_type: string }).exc_type === 'EventNotFound');
  for (const route of owned.filter((r) => !destructive(r))) {
    for (const [who, headers] of [
      ['the owner', owner],
      ["the owner's key without a session", agent],
      ['the operator', operator],
    ] as const) {
      const reply = await http.request(route.method, route.path, { ...requestFor(route, demo), headers });
      t.ok(reached(reply), `${route.key}: ${who} (${reply.status} ${reply.status >= 300 ? reply.text : ''})`);
    }
  }
  for (const route of owned.filter(destructive).sort((a, b) => (a.key === 'DELETE /pools' ? 1 : b.key === 'DELETE /pools' ? -1 : 0))) {
    const reply = await http.request(route.method, route.path, { ...requestFor(route, demo), headers: owner });
    t.ok(reached(reply), `${route.key}: the owner (${reply.status})`);
  }
});
