// Jobs at scale, on real service processes (the built CLI): the 50,000-follower account
// collected whole while follows change during the job, each follower present at the end exactly
// once; and a service killed with SIGKILL mid-job resumes from its saved cursor after a restart,
// the export without duplicates or gaps.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { BIG } from '../../../adapters/upstream/sandbox/world/big.js';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { follow, unfollow } from '../../../adapters/upstream/sandbox/world/users.js';
import { createSandbox, FIXED } from '../../../adapters/upstream/sandbox/index.js';
import { serve } from '../../helpers/http.js';
import { startServices } from '../../support/service.js';
import { poll } from '../../helpers/poll.js';

type Job = { id: string; state: string; items: number; pages: number; cursor: string };
const CROWD = Array.from({ length: BIG.followers }, (_, i) => String(6_100_000_001 + i));

t.test('the 50,000-follower account, collected whole while follows change', async (t) => {
  const sandbox = createSandbox({ seed: 1 });
  const app = await composeApp(testConfig({ extra: { JOB_INTERVAL_MS: '0' } }), { upstream: sandbox });
  const http = await serve(app);
  t.teardown(() => http.close());
  const session = (await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
  const world = sandbox.world;
  const started = await http.request('POST', '/jobs', {
    form: { route: 'GET /user/followers', params: JSON.stringify({ user_id: BIG.pk }) },
    headers: { 'x-session-id': session },
  });
  t.equal(started.status, 202, started.text);
  const id = (started.body as Job).id;
  const status = async () => (await http.request('GET', '/jobs/status', { query: { id } })).body as Job;
  // While it runs: crowd members early in the list (already collected) and late in it (not yet) unfollow; others follow.
  await poll('a few pages', status, (job) => job.pages >= 20);
  const gone = [...CROWD.slice(100, 150), ...CROWD.slice(45_000, 45_050)];
  for (const pk of gone) unfollow(world, pk, BIG.pk);
  const joined = [...world.users.keys()].filter((pk) => !Object.values(FIXED).includes(pk as never)).slice(0, 40);
  for (const pk of joined) follow(world, pk, BIG.pk);
  const done = await poll('the job', status, (job) => job.state === 'done' || job.state === 'failed');
  t.equal(done.state, 'done');
  const rows = (await http.request('GET', '/jobs/results', { query: { id, format: 'ndjson' } })).text
    .split('\n')
    .filter(Boolean)
    .map((line) => String(JSON.parse(line).pk));
  const counts = new Map<string, number>();
  for (const pk of rows) counts.set(pk, (counts.get(pk) ?? 0) + 1);
  t.equal([...counts.values()].filter((n) => n > 1).length, 0, 'no row twice');
  const followers = world.users.get(BIG.pk)!.followers;
  t.equal(followers.size, BIG.followers - 100 + 40);
  t.equal([...followers].filter((pk) => counts.get(pk) !== 1).length, 0, `every one of the ${followers.size} followers at the end is there exactly once`);
  t.equal(rows.filter((pk) => CROWD.slice(45_000, 45_050).includes(pk)).length, 0, 'those who left before their page came are not');
  t.equal(done.items, rows.length, 'the status counts what the export holds');
});

t.test('kill -9 mid-job: the restarted service resumes from the saved cursor; no duplicates, no gaps', async (t) => {
  const key = randomBytes(32).toString('hex');
  const [service] = await startServices(1, { key, env: { SOCIALGATE_JOB_INTERVAL_MS: '0', SOCIALGATE_SANDBOX_LATENCY_MS: '5' } });
  t.teardown(() => service.dispose());
  const login = await service.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } });
  t.equal(login.status, 200, login.text);
  const started = await service.request('POST', '/jobs', {
    form: { route: 'GET /user/followers', params: JSON.stringify({ user_id: BIG.pk, amount: '200' }) },
    headers: { 'x-session-id': login.body as string },
  });
  t.equal(started.status, 202, started.text);
  const id = (started.body as Job).id;
  const status = async () => (await service.request('GET', `/jobs/status?id=${id}`)).body as Job;
  await poll('pages before the kill', status, (job) => job.pages >= 40);
  await service.kill();
  await service.start();
  const after = await status();
  t.ok(after.pages >= 40 && after.items >= 8000, `the saved progress survived (${after.pages} pages, ${after.items} items)`);
  t.not(after.cursor, '', 'with its cursor');
  const done = await poll('the resumed job', status, (job) => job.state === 'done', 60_000);
  t.equal(done.pages, BIG.followers / 200, 'each page fetched once (the one in flight at the kill at most once more, and it was not counted)');
  const rows = (await service.request('GET', `/jobs/results?id=${id}&format=ndjson`)).text
    .split('\n')
    .filter(Boolean)
    .map((line) => String(JSON.parse(line).pk));
  t.equal(rows.length, BIG.followers, 'every follower');
  t.same(rows, CROWD, 'once each, in order: no duplicates and no gaps');
});
