// The manifest covers the endpoint catalogue exactly, reaches the 288
// upstream methods of the reference map, and every call it makes is one the upstream library accepts.
import t from 'tap';
import { Ajv } from 'ajv';
import { existsSync, readFileSync } from 'node:fs';
import { defaultManifestDir, loadManifest } from '../../engine/manifest/load.js';
import { productRegistries } from '../../bin/compose.js';
import { testConfig } from '../../engine/config.js';
import type { Manifest, RouteSpec } from '../../engine/types.js';
import { pathToFileURL } from 'node:url';
import { SHARED } from '../helpers/root.js';

const shared = pathToFileURL(`${SHARED}/`);
const mapFile = new URL('spec/route-upstream-map.json', shared);
const methodsFile = new URL('upstream/aiograpi-1.0.9/methods.json', shared);
const catalogueFile = new URL('spec/001_cc7097987e5d2166.txt', shared);
const absent = (file: URL) => (existsSync(file) ? false : `${file.pathname} is not beside the project`);

interface MapRoute {
  method: string;
  path: string;
  area: string;
  upstream: string[];
}
interface UpstreamMethod {
  name: string;
  params: { name: string; required: boolean }[];
  varkw: boolean;
}

/** The real manifest with the product's own plugins and resolvers. */
function loadCatalogue(): Manifest {
  return loadManifest(defaultManifestDir(), productRegistries(testConfig()));
}

const manifest = loadCatalogue();
// The service's own areas (manifest `own: true`: system, background work, events, the operator's tools) are beyond the
// platform's catalogue, and so is a route marked `extension: true` in another area (the sandbox's activity, the README's
// "Adding a route" recipe).
// Routes for what a newer aiograpi added (manifest `since`) are beyond the specification's catalogue, by design.
const beyond = manifest.routes.filter((r) => r.since);
const apiRoutes = manifest.routes.filter((r) => !r.own && !r.since && !r.extension);
const byKey = new Map(manifest.routes.map((r) => [r.key, r]));

t.test('the removed route stays removed', async (t) => {
  t.notOk(byKey.has('GET /hashtag/related'), 'GET /hashtag/related is not in the manifest');
  t.notOk(
    manifest.routes.some((r) => r.path === '/hashtag/related'),
    'no method on /hashtag/related',
  );
});

t.test('every catalogue route is in the manifest, and nothing else', { skip: absent(mapFile) }, async (t) => {
  const map = JSON.parse(readFileSync(mapFile, 'utf8')).routes as MapRoute[];
  const expected = map.filter((r) => r.area !== 'System').map((r) => `${r.method} ${r.path}`);
  t.equal(expected.length, 270, 'the reference map lists 270 API routes');
  const missing = expected.filter((key) => !byKey.has(key));
  const extra = apiRoutes.map((r) => r.key).filter((key) => !expected.includes(key));
  t.same(missing, [], 'no catalogue route is missing');
  t.same(extra, [], 'no route beyond the catalogue');
});

t.test('the catalogue document and the manifest name the same paths', { skip: absent(catalogueFile) }, async (t) => {
  // Every backquoted path of the catalogue's tables (reels feeds and notification sub-paths are
  // written in prose or shortened there) must be a manifest path.
  const text = readFileSync(catalogueFile, 'utf8');
  const paths = new Set([...text.matchAll(/`(\/[a-z0-9/_.-]+)`/g)].map((m) => m[1]));
  const known = new Set(manifest.routes.map((r) => r.path));
  // "/user/notifications/posts, /stories, ... (paths prefixed with /user/notifications)"
  const shortened = new Set(['/stories', '/reels', '/videos', '/user/notifications']);
  const unknown = [...paths].filter((p) => !known.has(p) && !shortened.has(p) && p !== '/hashtag/related');
  t.same(unknown, [], 'every path the catalogue names is served');
});

t.test('the manifest reaches exactly the 288 upstream methods of the map', { skip: absent(mapFile) }, async (t) => {
  const map = JSON.parse(readFileSync(mapFile, 'utf8')).routes as MapRoute[];
  const expected = new Set(map.flatMap((r) => r.upstream));
  const reached = new Set(manifest.routes.filter((r) => !r.since && !r.extension).flatMap((r) => [...r.upstreamMethods]));
  t.equal(expected.size, 288);
  t.same(
    [...expected].filter((m) => !reached.has(m)),
    [],
    'every mapped method is reached by some route',
  );
  t.same(
    [...reached].filter((m) => !expected.has(m)),
    [],
    'no route reaches a method outside the map',
  );
});

t.test('each route reaches the upstream methods the map gives it', { skip: absent(mapFile) }, async (t) => {
  const map = JSON.parse(readFileSync(mapFile, 'utf8')).routes as MapRoute[];
  const differ: string[] = [];
  for (const entry of map) {
    const route = byKey.get(`${entry.method} ${entry.path}`);
    if (!route || route.own) continue;
    const missing = entry.upstream.filter((m) => !route.upstreamMethods.includes(m));
    if (missing.length) differ.push(`${route.key}: ${missing.join(', ')}`);
  }
  // GET /story/upload* also list user_stories in the map; the route answers the uploaded story itself.
  t.same(
    differ.filter((d) => !/^POST \/story\/upload.*: user_stories$/.test(d)),
    [],
    'no route misses a mapped method',
  );
});

t.test('every call is one the upstream library accepts', { skip: absent(methodsFile) }, async (t) => {
  const methods = new Map((JSON.parse(readFileSync(methodsFile, 'utf8')).methods as UpstreamMethod[]).map((m) => [m.name, m]));
  const problems: string[] = [];
  for (const route of manifest.routes.filter((r) => !r.since)) for (const problem of callProblems(route, methods)) problems.push(`${route.key}: ${problem}`);
  t.same(problems, [], 'methods exist, keywords are parameters, required parameters are supplied');
  const inSpec = beyond.filter((route) => route.calls.some((call) => methods.has(call.method)));
  t.same(
    inSpec.map((r) => r.key),
    [],
    "a route marked `since` calls only what the specification's aiograpi lacks",
  );
  t.ok(manifest.routes.reduce((n, r) => n + r.calls.length, 0) > 270, 'the check saw the calls');
});

/** Plugin-only keywords: what a plugin supplies itself instead of a declared argument. */
const PLUGIN_SUPPLIED: Readonly<Record<string, readonly string[]>> = {};

function callProblems(route: RouteSpec, methods: Map<string, UpstreamMethod>): string[] {
  const problems: string[] = [];
  for (const call of route.calls) {
    const method = methods.get(call.method);
    if (!method) {
      problems.push(`${call.method} is not an upstream method`);
      continue;
    }
    const names = new Set(method.params.map((p) => p.name));
    // Parameters a newer aiograpi added (manifest `since`) are missing from the spec's 1.0.9 by design:
    // the engine refuses them by name on 1.0.9 (test/adapters/upstream/aiograpi/library-versions.test.ts).
    const newer = new Set(route.params.filter((p) => p.since).map((p) => p.upstream));
    const given = Object.keys(call.args).filter((keyword) => !newer.has(keyword));
    for (const keyword of given) if (!names.has(keyword) && !method.varkw) problems.push(`${call.method} takes no keyword ${keyword}`);
    const supplied = new Set([...given, ...(route.plugin ? (PLUGIN_SUPPLIED[route.plugin] ?? []) : [])]);
    for (const p of method.params) if (p.required && !supplied.has(p.name)) problems.push(`${call.method} misses its required ${p.name}`);
    for (const [keyword, source] of Object.entries(call.args)) {
      if ('from' in source && !suppliedBy(route, source.from, call)) problems.push(`${call.method}.${keyword} reads ${source.from}, which nothing provides`);
    }
  }
  return problems;
}

/** An argument's source is a parameter, the engine's own input, or an earlier call's result. */
function suppliedBy(route: RouteSpec, name: string, call: RouteSpec['calls'][number]): boolean {
  if (name === '_workdir' || route.params.some((p) => p.name === name)) return true;
  const index = route.calls.indexOf(call);
  return route.calls.slice(0, index).some((c) => c.as === name);
}

t.test('parameters follow the spec conventions', async (t) => {
  const problems: string[] = [];
  for (const route of [...apiRoutes, ...beyond]) {
    for (const p of route.params) {
      if (/(^|_)(pk|id)$/.test(p.name) && (p.type === 'integer' || p.type === 'number'))
        problems.push(`${route.key} ${p.name}: an id must be a string (type id)`);
      if (['folder', 'returnFile', 'revert', 'unfollow'].includes(p.name)) problems.push(`${route.key} ${p.name}: not a parameter of the service`);
      if (route.method !== 'GET' && p.in === 'query') problems.push(`${route.key} ${p.name}: ${route.method} parameters are form fields`);
      if (!p.description) problems.push(`${route.key} ${p.name}: undocumented`);
    }
    if (!route.description) problems.push(`${route.key}: no description`);
    if (route.result.shape === 'file' || route.result.shape === 'files') {
      const folder = route.calls.every((c) => 'from' in (c.args.folder ?? {}) && (c.args.folder as { from: string }).from === '_workdir');
      if (!folder) problems.push(`${route.key}: a download passes folder: _workdir`);
    }
  }
  t.same(problems, []);
  const totp = byKey.get('GET /auth/totp/code');
  t.equal(totp?.session, 'none', 'GET /auth/totp/code needs no session');
  const timezone = byKey.get('POST /auth/login')?.params.find((p) => p.name === 'timezone');
  t.equal(timezone?.type, 'integer', 'timezone is an integer number of seconds');
});

t.test('summaries are distinct', async (t) => {
  const seen = new Map<string, string>();
  const dup: string[] = [];
  for (const r of manifest.routes) {
    const other = seen.get(r.summary);
    if (other) dup.push(`${r.key} and ${other}: "${r.summary}"`);
    seen.set(r.summary, r.key);
  }
  t.same(dup, []);
});

t.test('the shapes of the behaviour document', async (t) => {
  const shape = (key: string) => byKey.get(key)?.result.shape;
  const pages = [
    '/direct/inbox',
    '/direct/pending',
    '/direct/spam',
    '/account/archive/media',
    '/hashtag/media/recent',
    '/hashtag/media/top',
    '/location/media/recent',
    '/location/media/top',
    '/media/comments',
    '/story/archive',
    '/story/viewers',
    '/user/reels',
    '/account/follow/requests',
    '/user/followers',
    '/user/following',
    '/user/posts',
    '/user/tagged/posts',
    '/user/videos',
  ];
  for (const path of pages) {
    t.equal(shape(`GET ${path}`), 'page', `GET ${path} is a page`);
    t.ok(
      byKey.get(`GET ${path}`)?.params.some((p) => p.name === 'cursor' && p.default === ''),
      `GET ${path} takes cursor`,
    );
  }
  t.equal(apiRoutes.filter((r) => r.result.shape === 'page').length, 18, 'exactly the 18 PAGE routes are pages');
  t.equal(shape('GET /media/comments/stream'), 'stream_page');
  for (const path of [
    '/hashtag/reels',
    '/location/guides',
    '/user/guides',
    '/user/pinned/posts',
    '/reels',
    '/reels/friends',
    '/reels/explore',
    '/reels/timeline',
  ]) {
    t.equal(shape(`GET ${path}`), 'array', `GET ${path} is a plain array`);
  }
  for (const path of ['/reels', '/reels/friends', '/reels/explore', '/reels/timeline']) {
    const names = byKey.get(`GET ${path}`)!.params.map((p) => p.name);
    t.ok(names.includes('amount') && names.includes('last_media_pk'), `GET ${path} takes amount and last_media_pk`);
    t.same(byKey.get(`GET ${path}`)!.result.schema, { type: 'array', items: { $ref: '#/components/schemas/Media' } });
  }
  const share = byKey.get('GET /share')!;
  t.same(share.constraints, [{ kind: 'exactly_one', params: ['url', 'code'] }]);
  t.same(Object.keys(share.result.options.fields as object).sort(), ['code', 'pk', 'type']);
  t.same(byKey.get('GET /user/creator')!.result.options.keys, ['user', 'info']);
  t.same(byKey.get('GET /user/stream')!.params.find((p) => p.name === 'view')?.schema.enum, ['flat', 'raw']);
  const archive = byKey.get('GET /story/archive/media')!.params.find((p) => p.name === 'amount')!;
  t.equal(archive.schema.minimum, 0, 'story archive media accepts amount=0 (all)');
  t.equal(archive.default, 0);
  t.same(byKey.get('GET /highlight')!.constraints, [{ kind: 'exactly_one', params: ['highlight_pk', 'url'] }]);
  const patch = byKey.get('PATCH /highlight')!;
  const titleOnly = patch.calls.find((c) => c.method === 'highlight_change_title')!;
  t.same(Object.keys(titleOnly.args).sort(), ['highlight_pk', 'title'], 'a title-only patch passes only the title');
  for (const name of ['cover', 'added_media_ids', 'removed_media_ids']) t.equal(titleOnly.when?.[name], 'absent', `title-only when ${name} is absent`);
  for (const route of apiRoutes.filter((r) => r.result.shape === 'raw')) {
    t.same(route.result.schema.type, 'object', `${route.key} is documented as a free-form object`);
  }
});

t.test('notification settings take the values of the behaviour document', async (t) => {
  const route = byKey.get('PATCH /notifications/settings')!;
  const values = route.params.find((p) => p.name === 'setting_value')!.schema.enum as string[];
  for (const v of ['off', 'following_only', 'everyone', 'cancel', '15_minutes', '1_hour', '2_hour', '4_hour', '8_hour']) t.ok(values.includes(v), v);
  const types = route.params.find((p) => p.name === 'content_type')!.schema.enum as string[];
  t.ok(types.includes('mute_all') && types.includes('likes'));
  t.same(route.calls.find((c) => c.method === 'notification_mute_all')?.when, { content_type: 'mute_all' });
  const others = route.calls.find((c) => c.method === 'notification_settings')?.when?.content_type as string[];
  t.same([...others, 'mute_all'].sort(), [...types].sort(), 'every other content type goes to notification_settings');
  // The pairing: mute_all takes its own values, every other content type the three others.
  const ajv = new Ajv({ strict: false });
  const pairing = ajv.compile({ allOf: route.rules });
  t.ok(pairing({ content_type: 'mute_all', setting_value: '1_hour' }), 'mute_all takes 1_hour');
  t.notOk(pairing({ content_type: 'mute_all', setting_value: 'everyone' }), 'mute_all refuses everyone');
  t.ok(pairing({ content_type: 'likes', setting_value: 'following_only' }), 'likes takes following_only');
  t.notOk(pairing({ content_type: 'likes', setting_value: '8_hour' }), 'likes refuses 8_hour');
  const listed = byKey.get('GET /notifications/settings')!;
  t.equal(listed.result.shape, 'constant', 'GET /notifications/settings answers a constant body');
  const value = listed.result.options.value as { content_types: string[]; setting_values: string[]; mute_all_values: string[] };
  t.same([...value.content_types].sort(), [...types].sort(), 'it lists exactly the content types PATCH accepts');
  t.same([...value.setting_values, ...value.mute_all_values].sort(), [...values].sort(), 'and exactly the values');
});

t.test('POST never reverses, DELETE does: no flag undoes a POST', async (t) => {
  const flags = apiRoutes
    .filter((r) => r.method === 'POST')
    .flatMap((r) => r.params.filter((p) => /^(revert|unfollow|undo|disable|remove)$/.test(p.name)).map((p) => `${r.key} ${p.name}`));
  t.same(flags, []);
  // The state machines of the behaviour document: each POST has its DELETE on the same path.
  const pairs = [
    '/user/follow',
    '/user/close-friend',
    '/user/notifications/posts',
    '/user/notifications/stories',
    '/user/notifications/reels',
    '/user/notifications/videos',
    '/media/like',
    '/media/comment/like',
    '/media/comment/pin',
    '/clip/pin',
    '/auth/totp',
    '/user/block',
    '/user/mute/posts',
    '/user/mute/stories',
    '/media/archive',
    '/media/pin',
    '/media/save',
    '/hashtag/follow',
    '/story/like',
    '/direct/thread/mute',
    '/direct/thread/video/call/mute',
    '/direct/message/like',
    '/direct/message/reaction',
    '/highlight/story',
    '/media/note',
  ];
  for (const path of pairs) t.ok(byKey.has(`POST ${path}`) && byKey.has(`DELETE ${path}`), `POST and DELETE ${path}`);
});
