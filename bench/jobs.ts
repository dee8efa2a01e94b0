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
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serve } from '../test/helpers/http.js';

type Job = { id: string; state: string; items: number; pages: number };

export async function benchJobs(): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), 'sg-bench-jobs-'));
  try {
    const app = await composeApp(testConfig({ store: `sqlite://${join(dir, 'sessions.sqlite')}`, dataDir: dir, extra: { JOB_INTERVAL_MS: '0' } }), {
      upstream: createSandbox({ seed: 1 }),
    });
    const http = await serve(app);
    const session = (await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
    const collect = async (route: string, params: Record<string, string>, limit = 0) => {
      const started = performance.now();
      const job = (
        await http.request('POST', '/jobs', { form: { route, params: JSON.stringify(params), limit: String(limit) }, headers: { 'x-session-id': session } })
      ).body as Job;
      const rss: number[] = [];
      const heap: number[] = [];
      let status: Job;
      do {
        await new Promise((resolve) => setTimeout(resolve, 200));
        status = (await http.request('GET', '/jobs/status', { query: { id: job.id } })).body as Job;
        (globalThis as { gc?: () => void }).gc?.(); // with --expose-gc, what stays after a collection
        rss.push(process.memoryUsage().rss);
        heap.push(process.memoryUsage().heapUsed);
      } while (status.state !== 'done' && status.state !== 'failed');
      return { seconds: (performance.now() - started) / 1000, items: status.items, rss, heap };
    };
    const followers = await collect('GET /user/followers', { user_id: BIG.pk, amount: '200' });
    // 100,000 items: the followers twice over (two jobs), sampling RSS through both
    const second = await collect('GET /user/followers', { user_id: BIG.pk, amount: '200' });
    const rss = [...followers.rss, ...second.rss];
    const mb = (bytes: number) => (bytes / 1048576).toFixed(0);
    const comments = await collect('GET /media/comments', { media_id: BIG.post, amount: '200' });
    await http.close();
    const resume = await resumeAfterKill(join(dir, 'resume'));
    return {
      'resume after kill -9: restart to ready, ms': resume.readyMs.toFixed(0),
      'resume after kill -9: restart to the next saved page, ms': resume.pageMs.toFixed(0),
      'followers collected (items)': String(followers.items),
      'items/s, 50,000 followers, pages of 200, pacing off': (followers.items / followers.seconds).toFixed(0),
      'items/s, 5,000 comments, pages of 200': (comments.items / comments.seconds).toFixed(0),
      'heap MB after GC (with --expose-gc): peak in the first job, peak in the second': `${mb(Math.max(...followers.heap))}, ${mb(Math.max(...second.heap))}`,
      ['RSS MB while collecting 100,000 items (two jobs of 50,000 in a row): first sample, peak in the first job, ' + 'peak in the second']:
        `${mb(rss[0])}, ${mb(Math.max(...followers.rss))}, ${mb(Math.max(...second.rss))}`,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A served process killed with SIGKILL mid-job, then started again: how long until it is ready and until the job saves its next page. */
async function resumeAfterKill(dataDir: string): Promise<{ readyMs: number; pageMs: number }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const cli = fileURLToPath(new URL('../../bin/socialgate.js', import.meta.url)); // from dist/bench
  const env = { ...process.env, SOCIALGATE_JOB_INTERVAL_MS: '0', SOCIALGATE_SANDBOX_LATENCY_MS: '5', SOCIALGATE_LOG_LEVEL: 'silent' };
  const start = () => spawn(process.execPath, [cli, 'serve', '--port', String(port), '--data-dir', dataDir], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  const call = async (method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}) => {
    const response = await fetch(url + path, { method, headers, body: form ? new URLSearchParams(form) : undefined });
    return response.json() as Promise<unknown>;
  };
  const until = async (probe: () => Promise<boolean>) => {
    for (;;) {
      if (await probe().catch(() => false)) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  let child: ChildProcess = start();
  await until(async () => (await fetch(url + '/ready')).ok);
  const session = (await call('POST', '/auth/login', { username: 'demo', password: 'demo-password' })) as string;
  const job = (await call('POST', '/jobs', { route: 'GET /user/followers', params: JSON.stringify({ user_id: BIG.pk }) }, { 'x-session-id': session })) as Job;
  const pages = async () => ((await call('GET', `/jobs/status?id=${job.id}`)) as Job).pages;
  await until(async () => (await pages()) >= 50);
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  const restarted = performance.now();
  child = start();
  await until(async () => (await fetch(url + '/ready')).ok);
  const readyMs = performance.now() - restarted;
  const saved = await pages();
  await until(async () => (await pages()) > saved);
  const pageMs = performance.now() - restarted;
  child.kill('SIGKILL');
  return { readyMs, pageMs };
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [name, value] of Object.entries(await benchJobs())) console.log(`${name}: ${value}`);
}
