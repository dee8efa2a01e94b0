// Issue 4, point 3: every catalogue route exercised against the sandbox through the real engine,
// its answer validated against the schema the OpenAPI document gives it.
import { productParts } from '../bin/compose.js';
import t from 'tap';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../engine/app.js';
import { testConfig } from '../engine/config.js';
import { createLogger } from '../engine/log.js';
import { createAjv, forAjv } from '../engine/validate.js';
import type { JsonSchema, RouteSpec } from '../engine/types.js';
import { createStore } from '../adapters/store/keyv.js';
import { codeFromPk, createSandbox, mediaUrls, sandboxFileBytes } from '../adapters/upstream/sandbox/index.js';
import { serve } from './helpers/http.js';

const sandbox = createSandbox({ seed: 1 });
const world = sandbox.world;

const files = await fileServer();
t.teardown(() => new Promise<void>((resolve) => files.server.close(() => resolve())));


const config = testConfig({ extra: { FETCH_ALLOW: '127.0.0.1' } });
const app = createApp({
  config, upstream: sandbox, store: await createStore('memory://'), log: createLogger('silent'), ...productParts(config),
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

/** Shared state between routes: values later routes need from earlier answers. */
const state: Record<string, unknown> = {};
const ctx = {
  world, session, state, fileUrl: (kind: 'image' | 'video') => `${files.url}/${kind === 'image' ? 'photo.jpg' : 'clip.mp4'}`,
  mediaUrls, codeFromPk,
  call: async (method: string, path: string, query: Record<string, unknown> = {}) =>
    (await http.request(method, path, method === 'GET' ? { query, headers: { 'x-session-id': session } } : { form: query, headers: { 'x-session-id': session } })).body,
  bytes: { image: sandboxFileBytes('jpeg', 'upload'), video: sandboxFileBytes('mp4', 'upload'), audio: sandboxFileBytes('mp3', 'upload') },
};

const routes = orderForRun(app.manifest.routes.filter((r) => r.area !== 'system'));

for (const route of routes) {
  t.test(route.key, async (t) => {
    const plan: Plan = await planFor(route, ctx);
    const reply = await send(route, plan);
    t.equal(reply.status, plan.status ?? 200, `${route.key} answers ${plan.status ?? 200}: ${reply.text.slice(0, 400)}`);
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
    plan.after?.(reply.body);
  });
}

t.test('behaviour points of the catalogue', async (t) => {
  const get = async (path: string, query: Record<string, unknown>) => (await http.request('GET', path, { query, headers: { 'x-session-id': session } }));
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
    t.notOk(next.some((m) => first.some((f) => f.pk === m.pk)), `${path} continues after last_media_pk`);
  }
  for (const [path, query] of [['/user', {}], ['/user/stream', { view: 'flat' }]] as const) {
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

async function send(route: RouteSpec, plan: Plan): Promise<{ status: number; headers: Headers; body: unknown; text: string; bytes: Buffer }> {
  const target = new URL(route.path, http.url);
  const headers: Record<string, string> = plan.noSession ? {} : { 'x-session-id': session };
  let body: BodyInit | undefined;
  const input = plan.input;
  if (route.method === 'GET') {
    for (const [key, value] of Object.entries(input)) for (const one of [value].flat()) target.searchParams.append(key, String(one));
  } else if (plan.files || route.params.some((p) => p.type === 'file')) {
    const form = new FormData();
    for (const [key, value] of Object.entries(input)) for (const one of [value].flat()) form.append(key, String(one));
    for (const [key, list] of Object.entries(plan.files ?? {})) for (const f of list) form.append(key, new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.name);
    body = form;
  } else {
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(input)) for (const one of [value].flat()) form.append(key, String(one));
    body = form;
  }
  const response = await fetch(target, { method: route.method, headers, body });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString('utf8');
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json')) parsed = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed, text, bytes };
}

/** Reads first, then creations and changes, then removals; what deletes objects others use runs last. */
function orderForRun(list: readonly RouteSpec[]): RouteSpec[] {
  const LAST = ['DELETE /media/comment', 'PATCH /account/password', 'DELETE /media', 'DELETE /story', 'DELETE /highlight', 'DELETE /note', 'DELETE /direct/thread', 'DELETE /direct/message', 'PATCH /auth/settings', 'PATCH /auth/relogin'];
  const rank = (r: RouteSpec) => (LAST.includes(r.key) ? 10 + LAST.indexOf(r.key) : { GET: 0, POST: 1, PATCH: 2, DELETE: 3 }[r.method]);
  return [...list].sort((a, b) => rank(a) - rank(b) || a.key.localeCompare(b.key));
}

/** Serves upload sources on loopback for the by/url routes (the fetch guard allows 127.0.0.1 here). */
async function fileServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const image = req.url?.endsWith('.jpg');
    res.writeHead(200, { 'content-type': image ? 'image/jpeg' : 'video/mp4' });
    res.end(image ? sandboxFileBytes('jpeg', 'remote') : sandboxFileBytes('mp4', 'remote'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

// ── Request plans: a valid request for each route, built from the sandbox's generated world ──────

interface Upload { bytes: Buffer; type: string; name: string }
interface Plan {
  input: Record<string, unknown>;
  files?: Record<string, Upload[]>;
  status?: number;
  noSession?: boolean;
  after?: (body: unknown) => void;
}
type Ctx = typeof ctx;

const me = world.users.get('5000000001')!;
const other = world.users.get([...me.following][0])!;
const mediaOf = (kind: string) => me.media.map((pk) => world.media.get(pk)!).find((m) => m.kind === kind && !m.archived)!;
const post = me.media.map((pk) => world.media.get(pk)!).find((m) => m.kind === 'photo' && m.comments.length > 0)!;
const postId = `${post.pk}_${me.pk}`;
const comment = world.comments.get(post.comments[0])!;
const story = me.stories[0];
const thread = [...world.threads.values()].find((th) => th.state.get(me.pk)?.folder === 'inbox' && th.messages.some((m) => world.messages.get(m)?.user === me.pk))!;
const myMessage = thread.messages.find((m) => world.messages.get(m)?.user === me.pk)!;
const hashtag = [...world.hashtags.values()][0];
const location = [...world.locations.values()][0];
const track = [...world.tracks.values()][0];
const collection = world.collections.get(me.collections[0])!;
const upload = (kind: 'image' | 'video' | 'audio'): Upload[] => [{ bytes: ctx.bytes[kind], type: { image: 'image/jpeg', video: 'video/mp4', audio: 'audio/mpeg' }[kind], name: { image: 'photo.jpg', video: 'clip.mp4', audio: 'voice.mp3' }[kind] }];

/** The value of a parameter by its name, for the routes that need nothing special. */
function byName(route: RouteSpec, name: string): unknown {
  const kindOfPath = route.path.startsWith('/album') ? 'album' : route.path.startsWith('/clip') ? 'clip' : route.path.startsWith('/longvideo') ? 'igtv' : route.path.startsWith('/video') ? 'video' : 'photo';
  const values: Record<string, unknown> = {
    user_id: other.pk, user_ids: [other.pk], username: other.username, query: other.username.slice(0, 3),
    media_id: postId, media_ids: [postId], media_pk: mediaOf(kindOfPath).pk, comment_pk: comment.pk, comment_id: comment.pk,
    story_pk: story, story_id: `${story}_${me.pk}`, story_pks: [story], story_ids: [story], highlight_pk: me.highlights[0],
    thread_id: thread.id, thread_ids: [thread.id], message_id: myMessage, location_pk: location.pk,
    name: route.path.startsWith('/account/collection') ? collection.name : hashtag.name, hashtag: hashtag.name, collection_pk: collection.pk,
    text: 'Nice one', caption: 'From the route matrix', title: 'Matrix', id: track.id, canonical_id: track.canonicalId,
    is_private: 'false', biography: 'Hello from the matrix', external_url: 'https://example.com/matrix', link_ids: [me.bioLinks[0]?.link_id ?? '1'],
    old_password: 'demo-password', new_password: 'demo-password-2', identifier: 'demo', email: 'demo@example.com', code: '123456',
    phone_number: '+15555550100', content_type: 'likes', setting_value: 'everyone', sticker_pk: '17900000000000000',
    original_audio_id: track.id, original_audio_name: 'My matrix sound', item_id: postId, search_surface: 'top_serp', chained_ids: [...other.following].slice(0, 2).join(','),
    seed: 'JBSWY3DPEHPK3PXP', note_id: [...world.notes.values()].find((n) => n.user === me.pk)?.id ?? '1',
    last_json: JSON.stringify({ message: 'challenge_required', challenge: { api_path: `/challenge/${me.pk}/abc/` } }), security_code: '123456',
    url: ctx.mediaUrls.image(post.pk), urls: [ctx.mediaUrls.image(post.pk), ctx.mediaUrls.image(mediaOf('photo').pk)],
  };
  return values[name];
}

async function planFor(route: RouteSpec, c: Ctx): Promise<Plan> {
  const input: Record<string, unknown> = {};
  const wanted = new Set(route.params.filter((p) => p.required && p.type !== 'file').map((p) => p.name));
  for (const c of route.constraints) if (c.kind !== 'at_most_one' && !c.params.some((p) => wanted.has(p))) wanted.add(c.params[0]);
  for (const name of wanted) input[name] = byName(route, name);
  const plan: Plan = { input };
  const fileParams = route.params.filter((p) => p.type === 'file' && p.required);
  if (fileParams.length) {
    plan.files = {};
    for (const p of fileParams) {
      const kind = p.format === 'video' ? 'video' : p.format === 'audio' ? 'audio' : 'image';
      plan.files[p.name] = p.repeated ? [...upload(kind), ...upload(kind)] : upload(kind);
    }
  }
  for (const p of route.params.filter((p) => p.type === 'url' && p.required && p.format)) input[p.name] = c.fileUrl(p.format === 'video' ? 'video' : 'image');
  await (special[route.key]?.(plan, c) ?? Promise.resolve());
  return plan;
}

const broadcast = async (c: Ctx): Promise<string> => {
  c.state.broadcast ??= ((await c.call('POST', '/media/livestream', { title: 'Matrix live' })) as { broadcast_id: string }).broadcast_id;
  return c.state.broadcast as string;
};
const musicTrack = async (c: Ctx): Promise<string> => {
  c.state.track ??= JSON.stringify(((await c.call('GET', '/search/music', { query: track.title.slice(0, 3) })) as unknown[])[0]);
  return c.state.track as string;
};

/** Routes whose valid request depends on the world's state or an earlier answer. */
/** A job of a few followers, started for the jobs routes that need one. */
async function matrixJob(c: Ctx): Promise<string> {
  return ((await c.call('POST', '/jobs', { route: 'GET /user/followers', params: JSON.stringify({ user_id: other.pk }), limit: 5 })) as { id: string }).id;
}

const special: Record<string, (plan: Plan, c: Ctx) => Promise<void> | void> = {
  'GET /share': (p) => { p.input = { code: Buffer.from(`media:${post.pk}`).toString('base64') }; },
  'GET /media': (p) => { p.input = { code: c2(post.pk) }; },
  'GET /highlight': (p) => { p.input = { url: `https://www.instagram.com/stories/highlights/${me.highlights[0]}/` }; },
  'GET /story': (p) => { p.input = { url: `https://www.instagram.com/stories/${me.username}/${story}/` }; },
  'GET /media/oembed': (p) => { p.input = { url: `https://www.instagram.com/p/${c2(post.pk)}/` }; },
  'GET /search/locations': (p) => { p.input = { name: location.name.split(' ')[0] }; },
  'GET /direct/presence': (p) => { p.input = { user_ids: [other.pk] }; },
  'GET /note': (p) => { p.input = { username: world.users.get([...world.notes.values()].find((n) => n.user !== me.pk)!.user)!.username }; },
  'GET /note/text': (p) => { p.input = { username: world.users.get([...world.notes.values()].find((n) => n.user !== me.pk)!.user)!.username }; },
  'GET /auth/totp/code': (p) => { p.noSession = true; },
  'POST /jobs': (p) => { Object.assign(p, { input: { route: 'GET /user/followers', params: JSON.stringify({ user_id: other.pk }), limit: 5 }, status: 202 }); },
  'GET /jobs/status': async (p, c) => { p.input = { id: await matrixJob(c) }; },
  'GET /jobs/results': async (p, c) => { p.input = { id: await matrixJob(c), format: 'csv' }; },
  'DELETE /jobs': async (p, c) => { p.input = { id: await matrixJob(c) }; },
  'POST /pools': (p, c) => { p.input = { name: 'matrix', sessions: [c.session] }; },
  'POST /pools/members': (p, c) => { p.input = { name: 'matrix', session_id: c.session }; },
  'DELETE /pools': async (p, c) => {
    await c.call('POST', '/pools', { name: 'matrix-gone', sessions: [c.session] });
    p.input = { name: 'matrix-gone' };
  },
  'DELETE /pools/members': (p) => { p.input = { name: 'matrix', member: me.pk }; },
  'GET /story/download/by/url': (p) => { p.input.url = ctx.mediaUrls.image(story); },
  'GET /video/download/by/url': (p) => { p.input.url = ctx.mediaUrls.video(mediaOf('video').pk); },
  'GET /clip/download/by/url': (p) => { p.input.url = ctx.mediaUrls.video(mediaOf('clip').pk); },
  'GET /longvideo/download/by/url': (p) => { p.input.url = ctx.mediaUrls.video(mediaOf('igtv').pk); },
  'GET /track/download/by/url': (p) => { p.input.url = ctx.mediaUrls.audio(`t${track.id}`); },
  'GET /media/livestream': async (p, c) => { p.input.broadcast_id = await broadcast(c); },
  'GET /media/livestream/comments': async (p, c) => { p.input.broadcast_id = await broadcast(c); },
  'GET /media/livestream/viewers': async (p, c) => { p.input.broadcast_id = await broadcast(c); },
  'PATCH /media/livestream': async (p, c) => { p.input = { broadcast_id: await broadcast(c), state: 'started' }; },
  'POST /auth/totp': async (p, c) => {
    const seed = await c.call('GET', '/auth/totp/seed');
    p.input.verification_code = await c.call('GET', '/auth/totp/code', { seed });
  },
  'DELETE /media/note': async (p, c) => {
    const created = (await c.call('POST', '/media/note', { media_id: postId, text: 'To be deleted' })) as { media_note: { id: string } };
    p.input.note_id = created.media_note.id;
  },
  'POST /photo/upload/with/music': async (p, c) => { p.input.track = await musicTrack(c); },
  'POST /clip/upload/with/music': async (p, c) => { p.input.track = await musicTrack(c); },
  'POST /album/upload/with/music': async (p, c) => { p.input.track = await musicTrack(c); },
  'POST /note/music': async (p, c) => { p.input.track = await musicTrack(c); },
  'POST /auth/login/by/sessionid': async (p, c) => {
    const settings = (await c.call('GET', '/auth/settings')) as { authorization_data?: { sessionid?: string }; cookies?: { sessionid?: string } };
    p.input = { sessionid: settings.authorization_data?.sessionid ?? settings.cookies?.sessionid ?? '' };
    p.noSession = true;
  },
  'POST /auth/login': (p) => { p.input = { username: 'demo', password: 'demo-password' }; p.noSession = true; },
  'POST /direct/request/approve': (p) => {
    p.input.thread_id = [...world.threads.values()].find((th) => th.state.get(me.pk)?.folder === 'pending')?.id ?? thread.id;
  },
  'PATCH /auth/settings': (p) => {
    p.input = { locale: 'en_GB', timezone: '3600' };
    p.after = (body) => { session = String(body); };
  },
  'PATCH /account': (p) => { p.input = { full_name: 'Demo Matrix' }; },
  'PATCH /highlight': (p) => { p.input = { highlight_pk: me.highlights[0], title: 'Renamed' }; },
  'PATCH /direct/thread': (p) => { p.input = { thread_id: thread.id, title: 'Renamed thread' }; },
  'POST /account/follow/request/approve': (p) => { p.input.user_id = [...world.users.values()].find((u) => u.requests.size > 0 && u.pk === me.pk)?.pk ?? p.input.user_id; },
};
const c2 = (pk: string) => ctx.codeFromPk(pk);
