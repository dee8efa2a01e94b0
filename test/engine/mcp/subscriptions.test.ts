// MCP subscriptions and questions on both protocol generations: a 2025 client (the SDK 1.x most
// agents ship) keeps a session, subscribes to its session's state and events and hears them change,
// and is asked to confirm a write through elicitation; a 2026-07-28 listener hears new events. The
// events come from the outbox through one loop per instance (counted here), resources backed by a
// route exist only where the manifest has the route, and the audit is shared through the work store.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { ElicitRequestSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { FIXED, type SandboxAdapter } from '../../../adapters/upstream/sandbox/index.js';
import { SqliteDb } from '../../../adapters/work/sqlite-db.js';
import { STORE_SCHEMA, sqliteWorkStore } from '../../../adapters/work/sqlite-store.js';
import { sealerFor } from '../../../adapters/work/sealer.js';
import { AuditRing, SharedAudit } from '../../../engine/mcp/audit.js';
import { resourceCatalog, sessionUri, urisChanging } from '../../../engine/mcp/resources.js';
import { ResourceUpdates } from '../../../engine/mcp/updates.js';
import { sessionRef } from '../../../engine/session-record.js';
import type { AuditEntry, EventLog, WorkStore } from '../../../engine/types.js';
import { product } from '../../helpers/full-app.js';
import { errorOf, modernOverHttp, sdk1OverHttp } from '../../helpers/mcp.js';
import type { R } from '../../helpers/session-http.js';

const KEY = 'k3y-for-mcp-subscription-tests-0123456789';
const p = await product({ apiKey: KEY, mcpTools: 'all' });
t.teardown(() => p.client.close());
const keyed = { 'x-api-key': KEY };
const loginAs = async (username: string) =>
  (await p.client.request('POST', '/auth/login', { form: { username, password: 'demo-password' }, headers: keyed })).body as string;
const closers: (() => Promise<void>)[] = [];
t.teardown(() => Promise.all(closers.map((close) => close())));
const until = async (done: () => boolean, what: string) => {
  for (let i = 0; i < 150 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!done()) throw new Error(`waited in vain for ${what}`);
};
const emit = (ref: string, id: string) =>
  p.app.services.work!.events.emit({ id, type: 'direct.message.created', session: ref, timestamp: Date.now(), data: { thread_id: 't1', text: 'hello' } });

t.test('a 2025 session (SDK 1.x): subscribed state and events are notified, events read back', async (t) => {
  const session = await loginAs('demo_throttled');
  const ref = sessionRef(session);
  const client = await sdk1OverHttp(p.client.url, { ...keyed, 'x-session-id': session });
  closers.push(() => client.close());
  const updated: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => void updated.push(note.params.uri));
  const uris = (await client.listResources()).resources.map((one) => one.uri);
  t.ok(uris.includes(sessionUri(ref, 'events')), "the session's events are a resource");
  await client.subscribeResource({ uri: sessionUri(ref, 'events') });
  await client.subscribeResource({ uri: sessionUri(ref, 'state') });
  await t.rejects(client.subscribeResource({ uri: sessionUri(ref, 'account') }), /No resource/, 'the account does not change by itself: no subscription');

  await emit(ref, `evt_test_${randomBytes(4).toString('hex')}`);
  await until(() => updated.includes(sessionUri(ref, 'events')), 'the events update');
  const read = await client.readResource({ uri: sessionUri(ref, 'events') });
  const events = JSON.parse((read.contents[0] as { text: string }).text) as { events: R[] };
  t.match(events.events.at(-1), { type: 'direct.message.created', data: { text: 'hello' } }, 'the event, from the outbox');

  t.match(errorOf(await client.callTool({ name: 'getAccount', arguments: {} })), { status: 429 });
  await until(() => updated.includes(sessionUri(ref, 'state')), 'the state update');
  t.same([...new Set(updated)].sort(), [sessionUri(ref, 'events'), sessionUri(ref, 'state')].sort(), 'only what it subscribed to');

  await client.unsubscribeResource({ uri: sessionUri(ref, 'events') });
  const before = updated.length;
  await emit(ref, `evt_test_${randomBytes(4).toString('hex')}`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(
    updated.filter((uri) => uri.endsWith('/events')).length,
    updated.slice(0, before).filter((uri) => uri.endsWith('/events')).length,
    'unsubscribed: no more events updates',
  );
});

t.test("a 2026-07-28 listener hears its session's new events", async (t) => {
  const session = await loginAs('demo');
  const ref = sessionRef(session);
  const modern = await modernOverHttp(p.client.url, { ...keyed, 'x-session-id': session });
  closers.push(() => modern.close());
  const updated: string[] = [];
  modern.setNotificationHandler('notifications/resources/updated', (note) => void updated.push(note.params.uri));
  const listening = await modern.listen({ resourceSubscriptions: [sessionUri(ref, 'events')] });
  t.teardown(() => listening.close());
  await emit(ref, `evt_test_${randomBytes(4).toString('hex')}`);
  await until(() => updated.length > 0, 'the events update');
  t.same(updated, [sessionUri(ref, 'events')]);
});

t.test('a 2025 session is asked to confirm a write (SDK 1.x elicitation): accepted, then declined', async (t) => {
  const session = await loginAs('demo');
  const world = (p.app.services.upstream as SandboxAdapter).world;
  const [first, second] = [...world.users.values()]
    .filter((user) => !user.isPrivate && !world.users.get(FIXED.demo)!.following.has(user.pk) && !Object.values(FIXED).includes(user.pk as never))
    .slice(20, 22);
  const answers: ('accept' | 'decline')[] = ['accept', 'decline'];
  const asked: string[] = [];
  const client = await sdk1OverHttp(p.client.url, { ...keyed, 'x-session-id': session }, { elicitation: {} });
  closers.push(() => client.close());
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params.message);
    const action = answers.shift()!;
    return action === 'accept' ? { action, content: { confirm: true } } : { action };
  });
  const done = await client.callTool({ name: 'postUserFollow', arguments: { user_id: first.pk } });
  t.notOk(done.isError, 'accepted: the follow is sent');
  t.match(asked[0], /postUserFollow, a follow write/);
  const friendship = async (pk: string) =>
    (await p.client.request('GET', '/user/friendship', { query: { user_id: pk }, headers: { ...keyed, 'x-session-id': session } })).body as R;
  t.equal((await friendship(first.pk)).following, true);
  t.match(errorOf(await client.callTool({ name: 'postUserFollow', arguments: { user_id: second.pk } })), { exc_type: 'ConfirmationDeclined' });
  t.equal((await friendship(second.pk)).following, false, 'declined: nothing reached the platform');
  const entries = await p.app.services.audit.recent({ session: sessionRef(session), tool: 'postUserFollow' });
  t.match(
    entries.map((entry) => entry.confirmation),
    ['not_needed', 'elicited'],
    'the audit says who confirmed',
  );
});

t.test('resources from routes exist only where the manifest has the route', async (t) => {
  const every = new Map<string, unknown>(p.app.manifest.routes.map((route) => [route.key, route]));
  const names = (routes: ReadonlyMap<string, unknown>, log?: EventLog) => resourceCatalog(routes, log).ofSession.map((one) => one.name);
  t.ok(every.has('GET /policy') && every.has('GET /writes/scheduled'), 'the policy and the scheduled writes have their routes');
  t.same(names(every, {} as EventLog), ['state', 'account', 'events', 'jobs', 'watch', 'policy', 'scheduled_writes'], 'the routes this manifest has');
  const gone = new Set(['GET /jobs', 'GET /policy', 'GET /writes/scheduled']);
  const without = new Map([...every].filter(([key]) => !gone.has(key)));
  t.same(names(without), ['state', 'account', 'watch'], 'no GET /jobs, /policy or /writes/scheduled, none of their resources; no event log, no events');
  const catalog = resourceCatalog(every, {} as EventLog);
  t.same(
    catalog.ofSession.map((one) => one.name),
    ['state', 'account', 'events', 'jobs', 'watch', 'policy', 'scheduled_writes'],
    "a feature's route brings its resource",
  );
  t.same(
    urisChanging(catalog, 'r1', 'writes'),
    [sessionUri('r1', 'policy'), sessionUri('r1', 'scheduled_writes')],
    'writes notify the budgets and the scheduled writes',
  );
});

t.test('one events loop per instance, however many subscribe', async (t) => {
  let looks = 0;
  let wake: () => void = () => undefined;
  let last = 0;
  const log: EventLog = {
    emit: async () => undefined,
    read: async () => [],
    last: async () => ((looks += 1), last),
    next: (ms, signal) =>
      new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        wake = () => (clearTimeout(timer), resolve());
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      }),
  };
  const updates = new ResourceUpdates(
    () => log,
    (ref) => sessionUri(ref, 'events'),
    60_000,
  );
  const heard: string[] = [];
  updates.reach((uri) => void heard.push(uri));
  const releases = Array.from({ length: 50 }, () => updates.hold('r1'));
  await new Promise((resolve) => setTimeout(resolve, 20));
  looks = 0;
  last = 1;
  wake();
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.equal(looks, 1, 'fifty subscribers of one session: one look at its log');
  t.same(heard, [sessionUri('r1', 'events')], 'and one update');
  for (const release of releases) release();
  updates.stop();
});

t.test('the audit is shared through the work store, and falls back to the ring', async (t) => {
  const db = new SqliteDb(':memory:', STORE_SCHEMA);
  const store = sqliteWorkStore(db, sealerFor(randomBytes(32)));
  t.teardown(() => store.close());
  const entry = (n: number): AuditEntry => ({
    at: new Date(1_700_000_000_000 + n).toISOString(),
    key: 'agent',
    session: n % 2 ? 'ref-odd' : 'ref-even',
    tool: 'getUser',
    route: 'GET /user',
    action: 'read',
    arguments: { username: `u${n}` },
    outcome: 'ok',
    status: 200,
    confirmation: 'not_needed',
    request_id: `req-${n}`,
    ms: 1,
  });
  const one = new SharedAudit(store, new AuditRing(5), 5);
  const other = new SharedAudit(store, new AuditRing(5), 5);
  for (let n = 1; n <= 120; n++) (n % 2 ? one : other).write(entry(n));
  await new Promise((resolve) => setTimeout(resolve, 100));
  const seen = await other.recent({ limit: 3 });
  t.same(
    seen.map((e) => e.request_id),
    ['req-120', 'req-119', 'req-118'],
    "both instances' calls, newest first, read by either",
  );
  t.same(
    (await one.recent({ session: 'ref-odd' })).map((e) => e.request_id),
    ['req-119', 'req-117'],
    'bounded to the newest five, then filtered',
  );
  t.ok((await store.count('mcp.audit')) < 120, 'trimmed as it grows');
  const broken = new SharedAudit(
    { ...store, last: async () => Promise.reject(new Error('down')), append: async () => Promise.reject(new Error('down')) } as WorkStore,
    new AuditRing(5),
    5,
  );
  broken.write(entry(99));
  t.same(
    (await broken.recent()).map((e) => e.request_id),
    ['req-99'],
    'a store that is down: the ring answers',
  );
});

t.test('a 2025 session answers only the key that opened it', async (t) => {
  const other = ((await p.client.request('POST', '/keys', { form: { name: 'other-agent', scopes: ['read', 'write'] }, headers: keyed })).body as R)
    .key as string;
  const post = (key: string, body: object, session?: string) =>
    fetch(`${p.client.url}/mcp`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-api-key': key,
        'mcp-protocol-version': '2025-06-18',
        ...(session ? { 'mcp-session-id': session } : {}),
      },
    });
  const init = await post(KEY, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  const session = init.headers.get('mcp-session-id');
  await init.body?.cancel();
  t.ok(session, 'initialize opens a session');
  const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
  const mine = await post(KEY, ping, session!);
  await mine.body?.cancel();
  t.equal(mine.status, 200, 'its key is answered');
  const theirs = await post(other, ping, session!);
  t.equal(theirs.status, 404, 'another key does not find it');
  await theirs.body?.cancel();
});

t.test("a 2025 session's own stream, answered before its first event, carries the request id", async (t) => {
  const headers = { accept: 'application/json, text/event-stream', 'x-api-key': KEY, 'mcp-protocol-version': '2025-06-18' };
  const init = await fetch(`${p.client.url}/mcp`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  await init.body?.cancel();
  const session = init.headers.get('mcp-session-id')!;
  const initialized = await fetch(`${p.client.url}/mcp`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'mcp-session-id': session },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.body?.cancel();
  const aborted = new AbortController();
  const stream = await fetch(`${p.client.url}/mcp`, { headers: { ...headers, 'mcp-session-id': session }, signal: aborted.signal });
  t.equal(stream.status, 200, 'the stream is open');
  t.match(stream.headers.get('content-type'), /^text\/event-stream/);
  t.match(stream.headers.get('x-request-id'), /^[0-9a-f]{12}-[0-9a-z]+$/, 'with the request id, though its head went before any event');
  aborted.abort();
  await stream.body?.cancel().catch(() => undefined);
});
