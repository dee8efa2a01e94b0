// What `npm run build` does once for every boot: the manifest parsed and checked, and every route's
// validator compiled to code. A boot uses them only while they were made from the same bytes, and
// what they give is what parsing and compiling at boot give.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { ValidateFunction } from 'ajv';
import { productRegistries } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { cachedDocs, cachePath } from '../../../engine/manifest/cache.js';
import { defaultManifestDir, loadManifest } from '../../../engine/manifest/load.js';
import { compileValidators, precompiledPath, precompiledRoutes } from '../../../engine/validate.js';
import type { InputBag } from '../../../engine/types.js';

const registries = productRegistries(testConfig());
const sourcesOf = (dir: string) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));

t.test('the build wrote both caches, and the product manifest is served from the first', async (t) => {
  t.ok(readFileSync(cachePath(), 'utf8').length > 0, 'dist/manifest.cache.json');
  t.ok(readFileSync(precompiledPath(), 'utf8').includes('module.exports.keys'), 'dist/validators.cjs');
  t.ok(cachedDocs(sourcesOf(defaultManifestDir())), 'the cache matches the manifest as it is');
});

t.test('one changed byte, and the manifest is parsed and checked again', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'socialgate-manifest-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  cpSync(defaultManifestDir(), dir, { recursive: true });
  t.ok(cachedDocs(sourcesOf(dir)), 'a byte-identical copy may use the cache');
  const user = join(dir, 'user.yaml');
  writeFileSync(user, readFileSync(user, 'utf8').replace('route: GET /user/followers', 'route: GET /user/followers\n    bogus_key: 1'));
  t.equal(cachedDocs(sourcesOf(dir)), undefined, 'the edited copy does not');
  t.throws(() => loadManifest(dir, registries), /unknown key/, 'and its error is found as before');
});

t.test('precompiled validators answer as validators compiled at boot do', async (t) => {
  const manifest = loadManifest(defaultManifestDir(), registries);
  t.equal(precompiledRoutes(manifest).length, manifest.routes.length, 'the build compiled every route of the product');
  const built = compileValidators(manifest);
  const compiled = compileValidators(manifest, null);
  const cases: [string, InputBag][] = [
    ['GET /user/followers', { user_id: '1', amount: 0 }],
    ['GET /user/followers', { user_id: '1', amount: 20, surprise: true }],
    ['POST /photo/upload/by/url', { url: 'not a url' }],
    ['POST /direct/thread/message', { text: 'hi' }],
    ['GET /user', {}],
  ];
  for (const [key, input] of cases) {
    const route = manifest.routes.find((r) => r.key === key)!;
    const a = { ...input };
    const b = { ...input };
    t.same(built.get(route)!(a), compiled.get(route)!(b), `${key} ${JSON.stringify(input)}: the same problems`);
    t.same(a, b, `${key}: the same defaults filled in`);
  }
});

t.test('a precompiled validator made from another schema is not used', async (t) => {
  const manifest = loadManifest(defaultManifestDir(), registries);
  const route = manifest.routes.find((r) => r.key === 'GET /user/followers')!;
  const refuseAll = Object.assign(() => false, {
    errors: [{ instancePath: '/user_id', keyword: 'x', message: 'stale', params: {}, schemaPath: '' }],
  }) as unknown as ValidateFunction;
  const stale = { keys: { [route.id]: 'another schema' }, validators: { [route.id]: refuseAll } };
  t.same(compileValidators(manifest, stale).get(route)!({ user_id: '1' }), [], 'compiled afresh, the input is valid');
  const matching = { keys: { [route.id]: 'another schema' }, validators: {} };
  t.ok(compileValidators(manifest, matching).get(route), 'a missing one is compiled too');
});
