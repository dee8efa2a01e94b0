// No runtime import cycle in the product's sources, and no layer importing one it must not: the
// engine knows no feature module, adapter or entry point; a feature module reaches an upstream
// only through the port it is given. The walker is shown finding a cycle in a fixture first.
import t from 'tap';
import { cycles, importGraph, reaching } from '../helpers/import-graph.js';
import { ROOT } from '../helpers/root.js';

const root = ROOT;
const graph = importGraph(root, ['engine', 'adapters', 'plugins', 'bin']);

t.test('the walker finds a runtime cycle and ignores a type-only loop', async (t) => {
  const fixture = importGraph(root, ['test/fixtures/import-cycle']);
  t.same(cycles(fixture), [['test/fixtures/import-cycle/a.ts', 'test/fixtures/import-cycle/b.ts']]);
  t.notOk(fixture.get('test/fixtures/import-cycle/a.ts')!.includes('test/fixtures/import-cycle/types-only.ts'), 'a type-only import is no edge');
});

t.test('the sources have no runtime import cycle', async (t) => {
  t.ok(graph.size > 100, `${graph.size} files walked`);
  t.same(cycles(graph), [], 'each list is a cycle: its files import each other at run time');
});

t.test('no layer imports one it must not', async (t) => {
  for (const layer of ['plugins/', 'adapters/', 'bin/']) t.same(reaching(graph, 'engine/', layer), [], `engine → ${layer}`);
  t.same(reaching(graph, 'plugins/', 'adapters/upstream/'), [], 'a plugin reaches the upstream through services.upstream, never by import');
  t.same(reaching(graph, 'adapters/', 'plugins/'), [], 'adapters → plugins');
});
