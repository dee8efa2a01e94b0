// Action classes: every route has one of the declared classes; a GET reads unless it says otherwise
// and a write takes its area file's class unless it names its own; the OpenAPI document names each
// operation's class; each MCP tool carries it; and a table of routes the platform counts in a
// known way (likes, comments, follows, messages, posts, profile edits).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { productRegistries } from '../../bin/compose.js';
import { testConfig } from '../../engine/config.js';
import { defaultManifestDir, loadManifest } from '../../engine/manifest/load.js';
import { needsConfirmation } from '../../engine/mcp/guard.js';
import { ACTION_META, buildTools } from '../../engine/mcp/tools.js';
import { buildOpenApi } from '../../engine/openapi.js';
import { ACTION_CLASSES, type ConfirmClass } from '../../engine/types.js';
import { fixtureManifestDir, fixturePlugins } from '../helpers/engine-app.js';

const manifest = loadManifest(defaultManifestDir(), productRegistries(testConfig()));
const byKey = new Map(manifest.routes.map((route) => [route.key, route]));

t.test('every route has a declared class, and every class but none is used', async (t) => {
  for (const route of manifest.routes) t.ok(ACTION_CLASSES.includes(route.action), `${route.key}: ${route.action}`);
  t.same(
    ACTION_CLASSES.filter((one) => !manifest.routes.some((route) => route.action === one)),
    [],
    'each class has routes',
  );
  t.same(
    manifest.routes.filter((route) => route.method === 'GET' && route.action !== 'read').map((route) => route.key),
    [],
    'every GET reads',
  );
});

t.test("the platform's counted actions land in their class", async (t) => {
  const expected: Record<string, string> = {
    'POST /media/like': 'like',
    'DELETE /media/like': 'like',
    'POST /story/like': 'like',
    'POST /media/comment/like': 'like',
    'POST /media/comment': 'comment',
    'DELETE /media/comment': 'comment',
    'POST /user/follow': 'follow',
    'DELETE /user/follow': 'follow',
    'DELETE /user/follower': 'follow',
    'POST /user/block': 'follow',
    'POST /user/close-friend': 'follow',
    'POST /account/follow/request/approve': 'follow',
    'POST /hashtag/follow': 'follow',
    'POST /direct/message': 'direct',
    'POST /direct/thread/message': 'direct',
    'POST /direct/request/approve': 'direct',
    'POST /photo/upload': 'post',
    'POST /video/upload/by/url': 'post',
    'POST /album/upload': 'post',
    'POST /clip/upload': 'post',
    'POST /story/upload': 'post',
    'POST /highlight': 'post',
    'POST /note': 'post',
    'PATCH /media': 'post',
    'DELETE /media': 'post',
    'PATCH /account': 'profile',
    'PATCH /account/picture': 'profile',
    'PATCH /account/privacy': 'profile',
    'POST /media/comment/check/offensive': 'read',
    'POST /user/mute/posts': 'other',
    'POST /jobs': 'other',
    'POST /auth/login': 'other',
  };
  for (const [key, action] of Object.entries(expected)) t.equal(byKey.get(key)?.action, action, key);
});

t.test("the default: read for GET, the file's class for writes, `other` without one; a route's own wins", async (t) => {
  const dir = fixtureManifestDir();
  const path = join(dir, 'things.yaml');
  const yaml = readFileSync(path, 'utf8');
  const plain = loadManifest(dir, { plugins: fixturePlugins });
  t.equal(plain.routes.find((route) => route.key === 'POST /thing')!.action, 'other');
  writeFileSync(
    path,
    yaml.replace('area: things\n', 'area: things\naction: post\n').replace('  - route: DELETE /thing\n', '  - route: DELETE /thing\n    action: like\n'),
  );
  const classed = loadManifest(dir, { plugins: fixturePlugins });
  t.equal(classed.routes.find((route) => route.key === 'POST /thing')!.action, 'post', "the file's class");
  t.equal(classed.routes.find((route) => route.key === 'DELETE /thing')!.action, 'like', "the route's own");
  t.equal(classed.routes.find((route) => route.key === 'GET /thing')!.action, 'read');
  writeFileSync(path, yaml.replace('  - route: POST /thing\n', '  - route: POST /thing\n    action: posting\n'));
  t.throws(() => loadManifest(dir, { plugins: fixturePlugins }), /action/, 'an unknown class stops the boot');
});

t.test("the OpenAPI document names each operation's class, and each MCP tool carries it", async (t) => {
  const doc = buildOpenApi(manifest) as { paths: Record<string, Record<string, { 'x-action-class'?: string }>> };
  for (const route of manifest.routes)
    t.equal(doc.paths[route.path][route.method.toLowerCase()]['x-action-class'], route.action, `${route.key} in the document`);
  for (const entry of buildTools(manifest)) {
    t.equal(entry.tool._meta?.[ACTION_META], entry.route.action, `${entry.name} as a tool`);
    t.equal(entry.tool.annotations?.readOnlyHint, entry.route.action === 'read');
  }
});

t.test('which writes MCP asks a human to confirm', async (t) => {
  const defaults = new Set<ConfirmClass>(testConfig().mcpConfirm);
  t.same([...defaults].sort(), ['delete', 'direct', 'follow', 'post']);
  const asks = (key: string, set: ReadonlySet<ConfirmClass> = defaults) => needsConfirmation(byKey.get(key)!, set);
  t.ok(asks('POST /direct/message') && asks('POST /user/follow') && asks('POST /photo/upload/by/url'), 'messages, follows, posts');
  t.ok(asks('DELETE /media/like'), 'a deletion of any class');
  t.notOk(asks('POST /media/like') || asks('POST /media/comment') || asks('PATCH /account'), 'likes, comments and profile edits are not in the default');
  t.notOk(asks('GET /direct/threads') || asks('POST /media/comment/check/offensive'), 'never a read');
  t.notOk(asks('POST /user/follow', new Set()), 'an empty setting asks nothing');
  t.ok(asks('POST /media/like', new Set<ConfirmClass>(['like'])));
});
