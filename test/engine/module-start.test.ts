// Feature modules started per app (engine/module-start.ts): each after the modules it needs, with
// their parts; its plugins, guards, session sources and session views bound to its own parts at
// boot; the guards of every module in one order; stopped last-started first.
import t from 'tap';
import { testConfig } from '../../engine/config.js';
import { startModules, startOrder } from '../../engine/module-start.js';
import type { FeatureModule, GuardStep, Plugin, RouteGuard, RouteSpec, Services } from '../../engine/types.js';

const services = { config: testConfig() } as unknown as Services;
const route = { key: 'GET /x' } as unknown as RouteSpec;
const plugin: Plugin = { uses: [], handle: async () => null };
const guard = (name: string, seen?: unknown[]): RouteGuard => ({ name, bind: () => (() => seen) as unknown as GuardStep });
const names = (modules: readonly FeatureModule[]) => modules.map((m) => m.name);

t.test('a module starts after the modules it needs and reads their parts; the listed order otherwise', async (t) => {
  const started: string[] = [];
  const store: FeatureModule<{ rows: number }> = { name: 'store', start: () => (started.push('store'), { rows: 3 }) };
  const counter: FeatureModule<number> = {
    name: 'counter',
    needs: [store],
    start: (context) => (started.push('counter'), context.partsOf(store).rows * 2),
  };
  const lone: FeatureModule = { name: 'lone', start: () => void started.push('lone') };
  const modules = startModules([counter, lone, store], services);
  t.same(started, ['store', 'counter', 'lone']);
  t.equal(modules.partsOf(counter), 6);
  t.same(modules.partsOf(store), { rows: 3 });
});

t.test('a module reading parts it does not name in needs, a need not listed, or a cycle stops the boot', async (t) => {
  const other: FeatureModule<number> = { name: 'other', start: () => 1 };
  const sneaky: FeatureModule = { name: 'sneaky', start: (context) => context.partsOf(other) };
  t.throws(() => startModules([other, sneaky], services), /sneaky reads other's parts without naming it in needs/);
  t.throws(() => startOrder([{ name: 'a', needs: [other] }]), /a needs other, which is not listed/);
  const a: { name: string; needs: FeatureModule[] } = { name: 'a', needs: [] };
  const b: FeatureModule = { name: 'b', needs: [a] };
  a.needs.push(b);
  t.throws(() => startOrder([a, b]), /a cycle of needs \(a -> b -> a\)/);
});

t.test("each plugin, session source and session view gets its own module's parts", async (t) => {
  const seen: unknown[] = [];
  const one: FeatureModule<string> = {
    name: 'one',
    start: () => 'parts of one',
    plugins: { 'one.read': plugin },
    sessionSources: [{ name: 'one.source', bind: (_route, _services, parts) => (seen.push(parts), undefined) }],
    sessionViews: [{ name: 'flag', empty: false, read: async (parts, records) => new Map(records.map((r) => [r.id, parts])) }],
  };
  const two: FeatureModule<number> = { name: 'two', start: () => 2, plugins: { 'two.read': plugin } };
  const modules = startModules([one, two], services);
  t.equal(modules.pluginParts.get('one.read'), 'parts of one');
  t.equal(modules.pluginParts.get('two.read'), 2);
  modules.sessionSources[0].bind(route, services);
  t.same(seen, ['parts of one']);
  const read = await modules.sessionViews[0].read([{ id: 's1' }] as never, 0);
  t.same([...read], [['s1', 'parts of one']]);
});

t.test('a module that renders session views starts after every module declaring some, and is handed them bound', async (t) => {
  const order: string[] = [];
  const page: FeatureModule<readonly string[]> = {
    name: 'page',
    readsSessionViews: true,
    start: (context) => (order.push('page'), context.sessionViews.map((v) => v.name)),
  };
  const owner: FeatureModule = {
    name: 'owner',
    start: () => void order.push('owner'),
    sessionViews: [{ name: 'budgets', empty: null, read: async () => new Map() }],
  };
  const plain: FeatureModule = { name: 'plain', start: (context) => (order.push('plain'), context.sessionViews.length) };
  const modules = startModules([page, plain, owner], services);
  t.same(order, ['owner', 'page', 'plain']);
  t.same(modules.partsOf(page), ['budgets']);
  t.equal(modules.partsOf(plain), 0, 'a module that does not render them is handed none');
});

t.test("the modules' guards are built from their parts and ordered together; two of one name stop the boot", async (t) => {
  const outer: FeatureModule<string> = {
    name: 'outer',
    start: () => 'made',
    guards: (_config, parts) => [
      { order: 30, guard: guard(`late-${parts}`) },
      { order: 10, guard: guard('first') },
    ],
  };
  const inner: FeatureModule = { name: 'inner', guards: () => [{ order: 20, guard: guard('middle') }] };
  t.same(
    startModules([outer, inner], services).guards.map((g) => g.name),
    ['first', 'middle', 'late-made'],
  );
  const again: FeatureModule = { name: 'again', guards: () => [{ order: 5, guard: guard('first') }] };
  t.throws(() => startModules([outer, again], services), /route guard "first" is declared by module outer and again by module again/);
});

t.test('stop runs last-started first with each module its parts, then closes the guards', async (t) => {
  const stopped: string[] = [];
  const base: FeatureModule<string> = { name: 'base', start: () => 'b', stop: async (parts) => void stopped.push(`base:${parts}`) };
  const top: FeatureModule<string> = {
    name: 'top',
    needs: [base],
    start: () => 't',
    stop: async (parts) => void stopped.push(`top:${parts}`),
    guards: () => [{ order: 1, guard: { ...guard('g'), close: async () => void stopped.push('guard') } }],
  };
  await startModules([top, base], services).stop();
  t.same(stopped, ['top:t', 'base:b', 'guard']);
  t.same(names(startOrder([top, base])), ['base', 'top']);
});
