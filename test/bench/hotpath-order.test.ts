// The hot-path bench's order of servers in a round (bench/hotpath.ts).
import t from 'tap';
import { orderOf } from '../../bench/hotpath.js';

t.test('each round serves every server once, each in turn first, and the policy process sessions in both orders', async (t) => {
  const rounds = Array.from({ length: 10 }, (_, i) => orderOf(i + 1));
  const kinds = [...rounds[0]].sort();
  for (const order of rounds) t.same([...order].sort(), kinds, `round ${order.join(', ')}: each once`);
  const firsts = new Set(rounds.slice(0, kinds.length).map((order) => order[0]));
  t.ok(firsts.size >= kinds.length - 1, `the first place turns: ${[...firsts].join(', ')}`);
  const policyFirst = rounds.map((order) => order.indexOf('policy') < order.indexOf('policy-off'));
  t.same(
    policyFirst,
    [true, false, true, false, true, false, true, false, true, false],
    'the counted session first in odd rounds, the uncounted one in even rounds',
  );
});
