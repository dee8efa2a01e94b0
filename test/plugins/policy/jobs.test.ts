// Background work under the policy: a job's pages spend the read budget less the share kept for
// interactive calls; when that is spent the job pauses (reason `budget`, never failed) with no
// upstream call, interactive reads still pass within the reserved share, and the job resumes on its
// own when the window turns. The policy's clock runs a few seconds before a minute's end, so the
// minute window turns soon in real time.
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { FIXED } from '../../../adapters/upstream/sandbox/index.js';
import { countingSandbox, patchPolicy, servedWithSession } from '../../helpers/policy.js';
import { untilJob } from '../../helpers/poll.js';

let shift = 0;
const { upstream, calls } = countingSandbox();
const config = testConfig({
  policy: 'standard',
  sessionCacheTtlMs: 0,
  extra: { JOB_INTERVAL_MS: '0', JOB_RECHECK_MS: '300', POLICY_INTERACTIVE_SHARE: '0.5' },
});
const app = await composeApp(config, { upstream, clock: () => Date.now() + shift });
const { http, as } = await servedWithSession(app);
t.teardown(() => http.close());
type Job = { id: string; state: string; pages: number; paused?: { reason: string; until: number } };
const status = async (id: string) => (await http.request('GET', '/jobs/status', { query: { id } })).body as Job;
const until = (id: string, wanted: (job: Job) => boolean, ms?: number): Promise<Job> => untilJob(http, id, wanted, ms);
const pages = () => calls.filter((m) => m === 'user_followers_v1_chunk').length;
const followers = () => http.request('GET', '/user/followers', { query: { user_id: FIXED.demo, amount: '5' }, headers: as });

t.test('a job pauses on the spent read budget, interactive reads keep their share, and the job resumes', async (t) => {
  // Four reads a minute: two for background work, two kept for interactive calls.
  await patchPolicy(http, as, { limits: { read: { minute: 4, hour: 1000, day: 10000 } } });
  shift = 54_000 - (Date.now() % 60_000); // the policy's minute ends about six seconds from now
  const reply = await http.request('POST', '/jobs', {
    form: { route: 'GET /user/followers', params: JSON.stringify({ user_id: FIXED.demo, amount: 5 }) },
    headers: as,
  });
  t.equal(reply.status, 202, reply.text);
  const job = reply.body as Job;
  const paused = await until(job.id, (j) => j.state === 'paused');
  t.equal(paused.paused?.reason, 'budget', 'paused, saying why');
  t.equal(paused.pages, 2, 'two pages: the background share of four');
  t.ok(paused.paused!.until > Date.now(), 'until the window turns');
  const during = pages();
  t.equal(during, 2, 'the refused page never reached the platform');
  const interactive = [await followers(), await followers()];
  t.same(
    interactive.map((r) => r.status),
    [200, 200],
    'interactive reads pass within the reserved share',
  );
  const over = await followers();
  t.equal(over.status, 429, 'and the whole budget is four');
  t.match(over.body, { exc_type: 'ActionBudgetExceeded', action_class: 'read', limit: 4 });
  t.equal((await status(job.id)).state, 'paused', 'the job is still paused, not failed');
  const resumed = await until(job.id, (j) => j.pages > 2, 15_000);
  t.not(resumed.state, 'failed', `resumed once the window turned (${resumed.state}, ${resumed.pages} pages)`);
});
