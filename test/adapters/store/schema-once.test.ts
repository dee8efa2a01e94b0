// schemaOnce (adapters/store/pg-client.ts), without a server: a create that lost a race with another
// instance (each "already exists" code PostgreSQL answers then) runs again and succeeds; any other
// failure is thrown and not remembered, so the next caller tries again; a race lost three times is thrown.
import t from 'tap';
import { RACED, schemaOnce } from '../../../adapters/store/pg-client.js';

const failing = (code: string) => Object.assign(new Error(`failed with ${code}`), { code });

t.test('a create that lost a race runs again, for each code a lost race answers', async (t) => {
  t.same([...RACED].sort(), ['23505', '42710', '42P07']);
  for (const code of RACED) {
    let runs = 0;
    const ensure = schemaOnce(async () => {
      runs++;
      if (runs === 1) throw failing(code);
    });
    await ensure();
    await ensure();
    t.equal(runs, 2, `${code}: run again once, then remembered`);
  }
});

t.test('another failure is thrown and not remembered; a race lost three times is thrown', async (t) => {
  let runs = 0;
  const down = schemaOnce(async () => {
    runs++;
    if (runs === 1) throw failing('08006');
  });
  await t.rejects(down(), { code: '08006' }, 'the server down at start: thrown');
  await down();
  t.equal(runs, 2, 'the next caller tried again and succeeded');
  let raced = 0;
  const losing = schemaOnce(async () => {
    raced++;
    throw failing('42710');
  });
  await t.rejects(losing(), { code: '42710' });
  t.equal(raced, 3, 'three tries');
});
