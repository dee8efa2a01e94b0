// Idempotency-Key on every POST, PATCH and DELETE route that acts on the
// platform. A table over the manifest: each route's documented example sent twice with one key
// makes one upstream call and answers the same, the second marked Idempotent-Replayed; the same key
// with another request is 422, while the first runs 409 with Retry-After; MCP tool calls carry the
// key in their _meta; the OpenAPI document lists the header on exactly those operations.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { keyedWrite } from '../../../engine/service-errors.js';
import type { RouteSpec } from '../../../engine/types.js';
import { createSandbox } from '../../../adapters/upstream/sandbox/index.js';
import { SANDBOX_VERSIONS } from '../../../adapters/upstream/sandbox/registry.js';
import { reconcileDeclared } from '../../../plugins/writes/reconcile.js';
import { exampleFetch, orderForRun } from '../../helpers/examples.js';
import { answerOf, errorOf, mcpOverHttp } from '../../helpers/mcp.js';
import { countedProduct } from '../../helpers/counted-upstream.js';

// The newest aiograpi the sandbox plays, so routes a newer library added run their examples too.
const sandbox = createSandbox({ seed: 1, version: SANDBOX_VERSIONS[SANDBOX_VERSIONS.length - 1] });
const { app, http, counted, session: demo } = await countedProduct(t, sandbox);
let session = demo;
function sandboxMedia(): string[] {
  return [...sandbox.world.media.values()]
    .filter((m) => m.owner !== '5000000001' && m.kind === 'photo')
    .slice(0, 2)
    .map((m) => `${m.pk}_${m.owner}`);
}
// Media the table's DELETE /media leaves alone: other accounts' posts.
const [media, otherMedia] = sandboxMedia();

const keyed = orderForRun(app.manifest.routes.filter(keyedWrite));

async function send(route: RouteSpec, key: string) {
  const { url, init } = exampleFetch(route, http.url, session);
  const started = performance.now();
  const response = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), 'idempotency-key': key } });
  const text = await response.text();
  return { status: response.status, text, replayed: response.headers.get('idempotent-replayed'), ms: performance.now() - started };
}

t.test('every keyed write: twice with one key, one upstream call, the same answer', async (t) => {
  t.ok(keyed.length > 100, `${keyed.length} routes take an Idempotency-Key`);
  const replayMs: number[] = [];
  // POST /auth/totp turns on the seed GET /auth/totp/seed made (the example's code is that seed's).
  await http.request('GET', '/auth/totp/seed', { headers: { 'x-session-id': session } });
  for (const route of keyed) {
    const key = randomUUID();
    const before = counted.calls.length;
    const first = await send(route, key);
    const made = counted.calls.length - before;
    const second = await send(route, key);
    t.ok(first.status >= 200 && first.status < 300, `${route.key} answers its example: ${first.status} ${first.text.slice(0, 200)}`);
    t.equal(counted.calls.length - before, made, `${route.key}: the repeat made no upstream call`);
    t.equal(second.status, first.status, `${route.key}: the same status`);
    t.equal(second.text, first.text, `${route.key}: the same body`);
    t.equal(second.replayed, 'true', `${route.key}: marked Idempotent-Replayed`);
    t.equal(first.replayed, null, `${route.key}: the first is not marked`);
    replayMs.push(second.ms);
    // PATCH /account/password leaves the session as it was; nothing else keyed rotates it.
  }
  const sorted = replayMs.sort((a, b) => a - b);
  t.comment(
    `replay: median ${sorted[Math.floor(sorted.length / 2)].toFixed(2)} ms, max ${sorted[sorted.length - 1].toFixed(2)} ms over ${sorted.length} routes`,
  );
});

t.test('every keyed write either has a read-back check or is marked reconcile: none in the manifest', async (t) => {
  t.same(
    keyed.filter((route) => !reconcileDeclared(route)).map((route) => route.key),
    [],
  );
});

const like = (key: string, form: Record<string, string> = { media_id: media }) =>
  http.request('POST', '/media/like', { form, headers: { 'x-session-id': session, 'idempotency-key': key } });

t.test('the same key with another request is 422 IdempotencyKeyReused, and sends nothing', async (t) => {
  const key = randomUUID();
  t.equal((await like(key)).status, 200);
  const before = counted.calls.length;
  const other = await like(key, { media_id: otherMedia });
  t.equal(other.status, 422, other.text);
  t.match(other.body, { exc_type: 'IdempotencyKeyReused' });
  const elsewhere = await http.request('DELETE', '/media/like', { query: { media_id: media }, headers: { 'x-session-id': session, 'idempotency-key': key } });
  t.match(elsewhere.body, { exc_type: 'IdempotencyKeyReused' }, 'another route with the key is another request too');
  t.equal(counted.calls.length, before, 'no upstream call');
});

t.test('a repeat while the first runs is 409 IdempotencyKeyInFlight with Retry-After; then the answer replays', async (t) => {
  const key = randomUUID();
  const comments = () => counted.calls.filter((m) => m === 'media_comment').length;
  const before = comments();
  const gate = counted.hold('media_comment');
  const form = { media_id: media, text: `in flight ${key}` };
  const first = http.request('POST', '/media/comment', { form, headers: { 'x-session-id': session, 'idempotency-key': key } });
  await gate.arrived;
  const second = await http.request('POST', '/media/comment', { form, headers: { 'x-session-id': session, 'idempotency-key': key } });
  t.equal(second.status, 409, second.text);
  t.match(second.body, { exc_type: 'IdempotencyKeyInFlight' });
  t.ok(Number(second.headers.get('retry-after')) >= 1, 'Retry-After');
  gate.release();
  const answered = await first;
  t.equal(answered.status, 200);
  const third = await http.request('POST', '/media/comment', { form, headers: { 'x-session-id': session, 'idempotency-key': key } });
  t.same(third.body, answered.body, 'the answer replays');
  t.equal(comments() - before, 1, 'one comment call for the key');
});

t.test('a malformed key is a 422 naming the header; without a key nothing changes', async (t) => {
  const bad = await like('with space');
  t.equal(bad.status, 422);
  t.match(bad.body, { errors: [{ param: 'Idempotency-Key' }] });
  const plain = await http.request('POST', '/media/like', { form: { media_id: media }, headers: { 'x-session-id': session } });
  t.equal(plain.status, 200);
  t.equal(plain.headers.get('idempotent-replayed'), null);
});

t.test('keys are scoped to the session', async (t) => {
  const key = randomUUID();
  t.equal((await like(key)).status, 200);
  const mine = session;
  // The table changed demo's password (PATCH /account/password): a second session by its platform cookie.
  session = (await http.request('POST', '/auth/login/by/sessionid', { form: { sessionid: sandbox.sessionIdFor('5000000001') } })).body as string;
  t.not(session, mine);
  t.teardown(() => void (session = mine));
  const before = counted.calls.length;
  const again = await like(key);
  t.equal(again.status, 200);
  t.equal(again.headers.get('idempotent-replayed'), null, "another session's key is another key");
  t.ok(counted.calls.length > before, 'it ran');
});

t.test('an MCP tool call carries the key in _meta', async (t) => {
  const client = await mcpOverHttp(http.url, { 'x-session-id': session });
  t.teardown(() => client.close());
  const key = randomUUID();
  const call = () => client.callTool({ name: 'postMediaLike', arguments: { media_id: media }, _meta: { 'Idempotency-Key': key } });
  const before = counted.calls.length;
  answerOf(await call());
  const made = counted.calls.length - before;
  answerOf(await call());
  t.ok(made > 0);
  t.equal(counted.calls.length - before, made, 'the repeat made no upstream call');
  const reused = await client.callTool({ name: 'postMediaLike', arguments: { media_id: otherMedia }, _meta: { 'Idempotency-Key': key } });
  t.match(errorOf(reused), { exc_type: 'IdempotencyKeyReused' });
});

t.test('the OpenAPI document lists Idempotency-Key on exactly the keyed writes', async (t) => {
  const doc = app.openapi as { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> };
  const wrong = app.manifest.routes.filter((route) => {
    const listed = (doc.paths[route.path][route.method.toLowerCase()].parameters ?? []).some((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    return listed !== keyedWrite(route);
  });
  t.same(
    wrong.map((route) => route.key),
    [],
  );
});
