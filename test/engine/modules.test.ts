// Feature modules merged at boot (engine/modules.ts): what each declares reaches the engine, and a
// name two modules declare (a plugin, an error code, a setting, an event type, a session source or
// view), or one the engine itself declares, stops the boot naming both declarers. Starting them per
// app is test/engine/module-start.test.ts.
import t from 'tap';
import { FEATURES, productModules } from '../../bin/compose.js';
import { coreSettingNames } from '../../engine/config.js';
import { mergeModules } from '../../engine/modules.js';
import { codes } from '../../engine/service-errors.js';
import type { FeatureModule, Plugin } from '../../engine/types.js';

const plugin: Plugin = { uses: [], handle: async () => null };
const row = { status: 404, on: () => true, when: 'never' } as const;

// [what is declared twice, first module, second module, the error's words]
const DUPLICATES: [string, FeatureModule, FeatureModule, RegExp][] = [
  [
    'plugin',
    { name: 'a', plugins: { 'x.y': plugin } },
    { name: 'b', plugins: { 'x.y': plugin } },
    /plugin "x.y" is declared by module a and again by module b/,
  ],
  [
    'error code',
    { name: 'a', errors: { ThingGone: row } },
    { name: 'b', errors: { ThingGone: row } },
    /error code "ThingGone" is declared by module a and again by module b/,
  ],
  [
    'setting',
    { name: 'a', settings: [{ name: 'X_MS', default: '1', describe: 'x' }] },
    { name: 'b', settings: [{ name: 'X_MS', default: '2', describe: 'y' }] },
    /setting "X_MS"/,
  ],
  [
    'event type',
    { name: 'a', eventTypes: [{ type: 'x.done', describe: 'x' }] },
    { name: 'b', eventTypes: [{ type: 'x.done', describe: 'x' }] },
    /event type "x.done"/,
  ],
  [
    'session view',
    { name: 'a', sessionViews: [{ name: 'v', empty: null, read: async () => new Map() }] },
    { name: 'b', sessionViews: [{ name: 'v', empty: null, read: async () => new Map() }] },
    /session view "v"/,
  ],
  [
    'session source',
    { name: 'a', sessionSources: [{ name: 's', bind: () => undefined }] },
    { name: 'b', sessionSources: [{ name: 's', bind: () => undefined }] },
    /session source "s"/,
  ],
  ['module name', { name: 'a' }, { name: 'a' }, /module "a" is declared by module a and again by module a/],
];

t.test('a name two modules declare stops the merge, naming both', async (t) => {
  for (const [what, first, second, message] of DUPLICATES) t.throws(() => mergeModules([first, second]), message, what);
});

t.test('a module may not declare again what the engine declares', async (t) => {
  const reserved = { errors: codes(), settings: coreSettingNames() };
  t.throws(
    () => mergeModules([{ name: 'x', errors: { SessionNotFound: row } }], reserved),
    /error code "SessionNotFound" is declared by the engine and again by module x/,
  );
  t.throws(
    () => mergeModules([{ name: 'x', settings: [{ name: 'CACHE_SIZE', default: '1', describe: 'x' }] }], reserved),
    /setting "CACHE_SIZE" is declared by the engine/,
  );
});

t.test('what each module declares reaches the merged table, with its module', async (t) => {
  const source = { name: 's', bind: () => undefined };
  const merged = mergeModules([
    { name: 'a', plugins: { 'a.one': plugin }, errors: { AGone: row }, settings: [{ name: 'A_MS', default: '1', describe: 'a' }], sessionSources: [source] },
    { name: 'b', plugins: { 'b.one': plugin }, eventTypes: [{ type: 'b.done', describe: 'b' }], start: () => undefined },
  ]);
  t.same(Object.keys(merged.plugins), ['a.one', 'b.one']);
  t.same(Object.keys(merged.errors), ['AGone']);
  t.same(
    merged.settings.map((s) => [s.name, s.module]),
    [['A_MS', 'a']],
  );
  t.same(
    merged.eventTypes.map((e) => e.type),
    ['b.done'],
  );
  t.equal(merged.sessionSources[0], source);
  t.same(
    merged.modules.map((m) => m.name),
    ['a', 'b'],
  );
});

t.test("the product's modules merge, and the engine names none of their errors", async (t) => {
  const merged = productModules();
  t.same(
    merged.names.slice(-FEATURES.length),
    FEATURES.map((m) => m.name),
  );
  for (const code of ['PoolNotFound', 'JobNotFound', 'WebhookNotFound', 'WatchNotFound', 'ConsoleNotBuilt', 'ApiKeyNotFound']) {
    t.ok(code in merged.errors, `${code} is a module's`);
    t.notOk(codes().includes(code), `${code} is not the engine's`);
  }
  t.ok(
    merged.sessionSources.some((s) => s.name === 'pools.x-pool'),
    "X-Pool is the pools module's",
  );
  t.ok(
    merged.keyProofs.some((p) => p.name === 'console.cookie'),
    "the console cookie is the console module's",
  );
});
