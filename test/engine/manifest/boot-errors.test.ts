// Boot errors: a broken manifest stops the boot with a message naming the file, the route and
// the key. Each case edits one thing in a copy of the fixture manifest.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { loadManifest } from '../../../engine/manifest/load.js';
import type { Plugin } from '../../../engine/types.js';
import { fixtureManifestDir, fixturePlugins } from '../../helpers/engine-app.js';

function bootWith(edit: (yaml: string) => string, plugins: Record<string, Plugin> = fixturePlugins, file = 'things.yaml') {
  const dir = fixtureManifestDir();
  const path = join(dir, file);
  writeFileSync(path, edit(readFileSync(path, 'utf8')));
  return () => loadManifest(dir, { plugins });
}

t.test('the fixture manifest boots and is frozen', async (t) => {
  const manifest = loadManifest(fixtureManifestDir(), { plugins: fixturePlugins });
  t.equal(manifest.routes.length, 16);
  t.ok(Object.isFrozen(manifest.routes[0]));
  t.ok(Object.isFrozen(manifest.routes[0].params[0]));
  t.throws(() => (manifest.routes as unknown as unknown[]).push({}));
  const owner = manifest.routes.find((r) => r.key === 'GET /owner/things')!;
  t.same(owner.upstreamMethods, ['owner_things', 'user_info_by_username_v1'], 'resolver methods count as reached');
  t.equal(owner.id, 'getOwnerThings');
});

t.test("a route may name a tag another area declares; the file's tag is the default", async (t) => {
  const boot = bootWith((y) =>
    y
      .replace('routes:\n', 'tags: [{ name: Extras, description: More things }]\nroutes:\n')
      .replace('    summary: One thing by id', '    tag: Extras\n    summary: One thing by id'),
  );
  const manifest = boot();
  t.equal(manifest.routes.find((r) => r.key === 'GET /thing')!.tag, 'Extras');
  t.equal(manifest.routes.find((r) => r.key === 'GET /things')!.tag, 'Things');
  t.same(
    manifest.tags.map((tag) => tag.name),
    ['Things', 'Extras'],
  );
});

const cases: { name: string; edit: (y: string) => string; file?: string; plugins?: Record<string, Plugin>; route?: string; key?: RegExp; message: RegExp }[] = [
  {
    name: 'unknown result shape',
    edit: (y) => y.replace('result: { shape: page, items: Thing }', 'result: { shape: pages, items: Thing }'),
    route: 'GET /things',
    key: /result\.shape/,
    message: /unknown result shape "pages"/,
  },
  {
    name: 'unknown parameter type',
    edit: (y) => y.replace('verbose: { type: boolean', 'verbose: { type: bool'),
    route: 'GET /thing',
    key: /params\.verbose\.type/,
    message: /must be one of/,
  },
  {
    name: 'unknown plugin',
    edit: (y) => y.replace('plugin: auth.login', 'plugin: auth.logon'),
    route: 'POST /auth/login',
    key: /plugin/,
    message: /unknown plugin "auth\.logon"/,
  },
  {
    name: 'plugin no route uses',
    edit: (y) => y,
    plugins: { ...fixturePlugins, 'auth.extra': fixturePlugins['auth.login'] },
    message: /used by no route: auth\.extra/,
  },
  {
    name: 'unknown tag',
    edit: (y) => y.replace('    summary: One thing by id', '    tag: Thingz\n    summary: One thing by id'),
    route: 'GET /thing',
    key: /^tag$/,
    message: /unknown tag "Thingz"/,
  },
  {
    name: 'tag declared twice',
    edit: (y) => y.replace('routes:\n', 'tags: [{ name: Things }]\nroutes:\n'),
    key: /^tag$/,
    message: /tag "Things" declared twice/,
  },
  {
    name: 'colliding operation ids',
    edit: (y) =>
      y.replace(
        '  - route: GET /things/stream',
        '  - route: GET /things_stream\n    summary: Collides with /things/stream\n    upstream: things_stream\n    ' +
          'result: { shape: raw }\n\n  - route: GET /things/stream',
      ),
    route: 'GET /things/stream',
    key: /route/,
    message: /operation id "getThingsStream" is also that of GET \/things_stream/,
  },
  {
    name: 'duplicate route',
    edit: (y) => y.replace('route: GET /things/stream', 'route: GET /things'),
    route: 'GET /things',
    key: /route/,
    message: /duplicate route/,
  },
  {
    name: 'unknown key',
    edit: (y) => y.replace('summary: One thing by id', 'summary: One thing by id\n    sumary: typo'),
    route: 'GET /thing',
    key: /sumary/,
    message: /unknown key/,
  },
  {
    name: 'unknown resolver',
    edit: (y) => y.replace('by: username_to_pk', 'by: username_to_id'),
    route: 'GET /owner/things',
    key: /resolve\.0\.by/,
    message: /unknown resolver/,
  },
  {
    name: 'unknown schema',
    edit: (y) => y.replace('items: Thing }\n\n  - route: GET /things/stream', 'items: Thingy }\n\n  - route: GET /things/stream'),
    route: 'GET /things',
    key: /result/,
    message: /unknown schema "Thingy"/,
  },
  {
    name: 'argument from an unknown input',
    edit: (y) => y.replace('args: { code: code }', 'args: { code: cod }'),
    route: 'GET /decode',
    key: /calls\.1\.args\.code/,
    message: /unknown input "cod"/,
  },
  { name: 'invalid YAML', edit: (y) => y + '\n  - route: [unclosed', message: /invalid YAML/ },
  { name: 'bad method', edit: (y) => y.replace('route: DELETE /thing', 'route: PUT /thing'), key: /route/, message: /must match pattern/ },
  {
    name: 'constant without a value',
    edit: (y) => y.replace("      value: { kinds: [a, b], modes: ['off', 'on'] }\n", ''),
    route: 'GET /thing/kinds',
    key: /result\.value/,
    message: /constant result needs its value/,
  },
  {
    name: 'no calls and no plugin',
    edit: (y) => y.replace('    upstream: thing_delete\n', ''),
    route: 'DELETE /thing',
    key: /calls/,
    message: /needs upstream calls or a plugin/,
  },
  { name: 'bad format version', edit: (y) => y.replace('format: 1', 'format: 2'), key: undefined, message: /must be equal to constant/ },
];

for (const c of cases) {
  t.test(`boot error: ${c.name}`, async (t) => {
    const boot = bootWith(c.edit, c.plugins, c.file);
    try {
      boot();
      t.fail('boot should have failed');
    } catch (error) {
      const e = error as Error & { file?: string; route?: string; key?: string };
      t.equal(e.name, 'ManifestError');
      t.match(e.message, c.message);
      if (c.name !== 'plugin no route uses') t.match(e.file, /things\.yaml$/, 'names the file');
      if (c.route) t.equal(e.route, c.route, 'names the route');
      if (c.key) t.match(e.key, c.key, 'names the key');
    }
  });
}
