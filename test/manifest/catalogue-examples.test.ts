// Every catalogue route's documented example request
// (the manifest's own example, as /docs sends it) run against the sandbox's default world through
// the real engine; each answers 200 and its body matches the schema the OpenAPI document gives it.
import t from 'tap';
import { productParts } from '../../bin/compose.js';
import { createApp } from '../../engine/app.js';
import { testConfig } from '../../engine/config.js';
import { createLogger } from '../../engine/log.js';
import { createAjv, forAjv } from '../../engine/validate.js';
import type { JsonSchema, RouteSpec } from '../../engine/types.js';
import { createStore } from '../../adapters/store/keyv.js';
import { createSandbox } from '../../adapters/upstream/sandbox/index.js';
import { SANDBOX_VERSIONS } from '../../adapters/upstream/sandbox/registry.js';
import { serve } from '../helpers/http.js';
import { exampleFetch, missingFromExample, orderForRun } from '../helpers/examples.js';

// The default world: the seed /docs and `npm start` use unless SOCIALGATE_SEED says otherwise. The
// sandbox plays the newest aiograpi it knows, so the routes a newer library added (manifest `since`)
// run their examples too; on the default 1.0.9 they are refused by name (test/adapters/upstream/sandbox/newer-library-routes.test.ts).
const config = testConfig();
const sandbox = createSandbox({ seed: config.seed, version: SANDBOX_VERSIONS[SANDBOX_VERSIONS.length - 1] });
const world = sandbox.world;
const app = createApp({
  config,
  upstream: sandbox,
  store: await createStore('memory://'),
  log: createLogger('silent'),
  ...productParts(config),
});
const http = await serve(app);
t.teardown(() => http.close());
const ajv = createAjv(app.manifest);

const login = await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } });
// PATCH /auth/settings rotates the id (the old one is revoked), so the run follows the new one.
let session = typeof login.body === 'string' ? login.body : '';

t.test('the demo account logs in', async (t) => {
  t.equal(login.status, 200, JSON.stringify(login.body));
  t.ok(session, 'a session id');
});

const ROTATES = new Set(['PATCH /auth/settings']);
// Jobs and pools answer about state their own tests make (test/plugins/jobs/): an example job id names no job here.
// The console answers about sessions by ref and holds its event stream open: test/plugins/console/ cover it.
// Events and webhooks answer about watches and endpoints their own tests make, and GET /events holds
// its stream open: test/plugins/events/ cover them. A named key, once added, makes every later
// request need one: test/plugins/keys/named-keys.test.ts covers the keys.
// The service's own areas are the manifest's `own: true` ones.
const routes = orderForRun(app.manifest.routes.filter((r) => !r.own));

t.test('every route has a runnable example', async (t) => {
  const lacking = routes.map((r) => [r.key, missingFromExample(r)] as const).filter(([, missing]) => missing.length);
  t.same(lacking, [], 'every required parameter and one of each group has an example');
});

// The examples are the valid inputs: each route's documented example request, sent as /docs sends
// it, in one sandbox world (seed 1, the default) after logging in as demo.
for (const route of routes) {
  t.test(route.key, async (t) => {
    const reply = await send(route);
    t.equal(reply.status, 200, `${route.key} answers 200 to its example: ${reply.text.slice(0, 400)}`);
    if (reply.status !== 200) return;
    if (route.result.shape === 'file' || route.result.shape === 'files') {
      t.notMatch(reply.headers.get('content-type') ?? '', /json/, 'a download is not JSON');
      t.ok(reply.bytes.length > 0, 'it has bytes');
      if (route.result.shape === 'files') t.equal(reply.bytes.subarray(0, 2).toString('latin1'), 'PK', 'a zip archive');
      return;
    }
    const check = ajv.compile(forAjv(route.result.schema) as JsonSchema);
    const ok = check(reply.body);
    t.ok(ok, `the answer matches its documented schema${ok ? '' : `: ${ajv.errorsText(check.errors?.slice(0, 5))}`}`);
    if (ROTATES.has(route.key)) session = String(reply.body);
  });
}

t.test('behaviour points of the catalogue', async (t) => {
  const get = async (path: string, query: Record<string, unknown>) => await http.request('GET', path, { query, headers: { 'x-session-id': session } });
  t.equal((await get('/hashtag/related', { name: hashtag.name })).status, 404, 'GET /hashtag/related is gone');
  const code = Buffer.from(`media:${post.pk}`).toString('base64');
  const byUrl = await get('/share', { url: `https://www.instagram.com/s/${code}` });
  t.same(byUrl.body, { type: 'media', pk: post.pk, code }, 'GET /share by url answers type, pk and the extracted code');
  t.equal((await get('/share', { url: `https://www.instagram.com/s/${code}`, code })).status, 422, 'url and code together are refused');
  const all = (await get('/story/archive/media', { amount: 0 })).body as unknown[];
  const one = (await get('/story/archive/media', { amount: 1 })).body as unknown[];
  t.ok(all.length > 1 && one.length === 1, `amount=0 returns every archived story (${all.length}), amount=1 one`);
  for (const path of ['/reels', '/reels/friends', '/reels/explore']) {
    const first = (await get(path, { amount: 2 })).body as { pk: string }[];
    t.ok(first.length > 0 && first.length <= 2, `${path} honours amount`);
    const next = (await get(path, { amount: 2, last_media_pk: first[first.length - 1].pk })).body as { pk: string }[];
    t.notOk(
      next.some((m) => first.some((f) => f.pk === m.pk)),
      `${path} continues after last_media_pk`,
    );
  }
  for (const [path, query] of [
    ['/user', {}],
    ['/user/stream', { view: 'flat' }],
  ] as const) {
    const byName = await get(path, { ...query, username: other.username });
    const legacy = await get(path, { ...query, user_id: `@${other.username}` });
    t.equal(legacy.status, 200, `${path}: a username in user_id is looked up by username`);
    t.same(legacy.body, byName.body, `${path}: user_id=@name answers as username=name`);
    t.equal((await get(path, { ...query, user_id: other.pk })).status, 200, `${path}: a numeric user_id stays a pk`);
  }
  const raw = (await get('/user/stream', { username: other.username, view: 'raw' })).body;
  const flat = (await get('/user/stream', { username: other.username, view: 'flat' })).body;
  t.notSame(raw, flat, 'view=raw and view=flat answer different payloads');
  const h = world.highlights.get(me.highlights[1] ?? me.highlights[0])!;
  const before = { stories: [...h.stories], cover: h.cover };
  const patched = await http.request('PATCH', '/highlight', { form: { highlight_pk: h.pk, title: 'Only the title' }, headers: { 'x-session-id': session } });
  t.equal(patched.status, 200);
  t.equal((patched.body as { title: string }).title, 'Only the title', 'the title changed');
  t.same({ stories: h.stories, cover: h.cover }, before, 'a title-only patch leaves stories and cover alone');
});

async function send(route: RouteSpec): Promise<{ status: number; headers: Headers; body: unknown; text: string; bytes: Buffer }> {
  const noSession = route.session === 'none' || route.key === 'POST /auth/login' || route.key === 'POST /auth/login/by/sessionid';
  const { url, init } = exampleFetch(route, http.url, noSession ? undefined : session);
  const response = await fetch(url, init);
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString('utf8');
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed, text, bytes };
}

// Subjects of the behaviour points, picked from the world (their assertions read HTTP).
const me = world.users.get('5000000001')!;
const other = world.users.get([...me.following][0])!;
const post = me.media.map((pk) => world.media.get(pk)!).find((m) => m.kind === 'photo' && m.comments.length > 0)!;
const hashtag = [...world.hashtags.values()][0];
