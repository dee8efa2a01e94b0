// The hot-path bench's flame graph (bench/flamegraph.ts) from a profile made by hand: boxes as wide
// as their time and what they called, siblings of one name merged, idle left out, names escaped.
import t from 'tap';
import { callTree, flameGraph } from '../../bench/flamegraph.js';
import type { Profile } from '../../bench/profile-top.js';

const frame = (functionName: string, url = 'file:///app/dist/engine/app.js') => ({ functionName, url, lineNumber: 0 });

// (root) → handle → { parse, write<T> }, handle → parse again (another node of the same name), (root) → (idle)
const PROFILE: Profile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', ''), children: [2, 6] },
    { id: 2, callFrame: frame('handle'), children: [3, 4, 5] },
    { id: 3, callFrame: frame('parse') },
    { id: 4, callFrame: frame('write<T>', 'node:net') },
    { id: 5, callFrame: frame('parse') },
    { id: 6, callFrame: frame('(idle)', '') },
  ],
  samples: [2, 3, 4, 4, 5, 6, 6, 6],
  timeDeltas: [100, 100, 100, 100, 100, 5000, 5000, 5000],
};

t.test('the call tree merges siblings of one name and leaves idle out', async (t) => {
  const root = callTree(PROFILE);
  t.equal(root.total, 500, 'busy time only');
  const handle = [...root.children.values()];
  t.equal(handle.length, 1);
  t.equal(handle[0].self, 100);
  t.same(
    [...handle[0].children.values()].map((box) => [box.name, box.total]),
    [
      ['parse dist/engine/app.js:1', 200],
      ['write<T> node:net:1', 200],
    ],
  );
});

t.test('each box is as wide as its share of the busy time, and every name is escaped', async (t) => {
  const svg = flameGraph(PROFILE, 'a <test>');
  const widths = [...svg.matchAll(/<title>([^<]*)<\/title><rect x="([\d.]+)" y="(\d+)" width="([\d.]+)"/g)].map((m) => [m[1].split(':')[0], Number(m[4])]);
  t.same(widths, [
    ['all', 1200],
    ['handle dist/engine/app.js', 1200],
    ['parse dist/engine/app.js', 480],
    ['write&lt;T&gt; node', 480],
  ]);
  t.match(svg, /a &lt;test&gt;: 0\.00 s busy/);
  t.notMatch(svg, /idle\)/, 'no idle box');
  const height = Number(/<svg[^>]* height="(\d+)"/.exec(svg)![1]);
  const rows = [...svg.matchAll(/<rect x="[\d.]+" y="(\d+)"/g)].map((m) => height - Number(m[1]));
  t.same(rows, [16, 32, 48, 48], 'every row placed: the root at the bottom, each caller below what it called');
});
