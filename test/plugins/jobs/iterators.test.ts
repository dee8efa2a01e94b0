// Jobs page with the library's async iterators where the running library has
// them (told by its capabilities), through the chunk methods otherwise, with the same resume
// guarantees. On the sandbox playing 1.12.13 a job reads iter_user_followers_v1 as a server-side
// cursor; on 1.0.9 it calls user_followers_v1_chunk; a job whose iterator is lost (a cursor the
// sidecar no longer holds, a restart) goes on through the chunk method and delivers every item once.
import t, { type Test } from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { UpstreamError } from '../../../engine/types.js';
import { createSandbox, FIXED, PASSWORD, type SandboxOptions } from '../../../adapters/upstream/sandbox/index.js';
import { serve, type Client } from '../../helpers/http.js';
import { probeUpstream, type Probe } from '../../support/probe-upstream.js';
import { tempFolder } from '../../support/process.js';
import { untilJob } from '../../helpers/poll.js';

type Job = { id: string; state: string; items: number; pages: number; paging?: string; replay?: number };
const PAGE = 7;
const ITERATOR = 'iter_user_followers_v1';
const CHUNK = 'user_followers_v1_chunk';

async function service(t: Test, sandbox: ReturnType<typeof createSandbox>, store = 'memory://', intervalMs = 0) {
  const probe = probeUpstream(sandbox);
  const config = testConfig({ store, sessionCacheTtlMs: 0, extra: { JOB_INTERVAL_MS: String(intervalMs), JOB_RECHECK_MS: '300' } });
  const app = await composeApp(config, { upstream: probe.adapter });
  const http: Client = await serve(app);
  let closed = false;
  const close = async () => void (closed || ((closed = true), await http.close()));
  t.teardown(close);
  return { app, http, probe, close };
}

async function login(http: Client): Promise<Record<string, string>> {
  const reply = await http.request('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD } });
  if (reply.status !== 200) throw new Error(`login: ${reply.status} ${reply.text}`);
  return { 'x-session-id': reply.body as string };
}

async function start(http: Client, headers: Record<string, string>): Promise<string> {
  const reply = await http.request('POST', '/jobs', {
    form: { route: 'GET /user/followers', params: JSON.stringify({ user_id: FIXED.demo, amount: PAGE }) },
    headers,
  });
  if (reply.status !== 202) throw new Error(`POST /jobs: ${reply.status} ${reply.text}`);
  return (reply.body as Job).id;
}

const until = (http: Client, id: string, wanted: (job: Job) => boolean, ms?: number): Promise<Job> => untilJob(http, id, wanted, ms, 20);

/** The job's items by pk, each once, and the account's followers as the world holds them. */
async function collected(t: Test, http: Client, id: string, sandbox: ReturnType<typeof createSandbox>): Promise<void> {
  const text = (await http.request('GET', '/jobs/results', { query: { id, format: 'ndjson' } })).text;
  const pks = text
    .split('\n')
    .filter(Boolean)
    .map((line) => String((JSON.parse(line) as { pk: unknown }).pk));
  t.equal(new Set(pks).size, pks.length, `${pks.length} items, none twice`);
  t.same(new Set(pks), sandbox.world.users.get(FIXED.demo)!.followers, 'every follower');
}

const paged = (probe: Probe, method: string) => probe.calls.filter((call) => call.method === method);
const newer = (options: SandboxOptions = {}) => createSandbox({ seed: 1, liveSeconds: 0, version: '1.12.13', ...options });

t.test('on 1.12.13 a job pages through the iterator, a page of its size at a time', async (t) => {
  const sandbox = newer();
  t.same(sandbox.library.capabilities?.iterators, ['iter_user_followers_v1', 'iter_user_medias', 'iter_hashtag_medias'], 'the sandbox tells its iterators');
  const { http, probe } = await service(t, sandbox);
  const id = await start(http, await login(http));
  const done = await until(http, id, (job) => job.state === 'done');
  const followers = sandbox.world.users.get(FIXED.demo)!.followers.size;
  t.equal(done.paging, 'iterator');
  t.equal(done.items, followers);
  t.equal(paged(probe, CHUNK).length, 0, 'no chunk call crossed the port');
  const reads = paged(probe, ITERATOR);
  t.ok(reads.length >= Math.ceil(followers / PAGE), `${reads.length} pages read from the iterator`);
  t.same(reads[0].kwargs, { user_id: FIXED.demo }, 'started with what the iterator takes: no cursor, no page size');
  t.same(reads[0].opts?.page, { cursor: undefined, size: PAGE });
  t.ok(
    reads.slice(1).every((read) => read.opts?.page?.cursor === reads[1].opts?.page?.cursor && read.opts?.page?.cursor),
    'read on through one cursor',
  );
  await collected(t, http, id, sandbox);
});

t.test('on 1.0.9 the same job pages through the chunk method', async (t) => {
  const sandbox = createSandbox({ seed: 1, liveSeconds: 0 });
  t.notOk(sandbox.library.capabilities, '1.0.9 has no iterators');
  const { http, probe } = await service(t, sandbox);
  const id = await start(http, await login(http));
  const done = await until(http, id, (job) => job.state === 'done');
  t.equal(done.paging, 'chunks');
  t.equal(paged(probe, ITERATOR).length, 0);
  t.equal(paged(probe, CHUNK).length, Math.ceil(sandbox.world.users.get(FIXED.demo)!.followers.size / PAGE));
  await collected(t, http, id, sandbox);
});

t.test('an iterator cursor lost mid-job: on through the chunk method, every item once', async (t) => {
  const sandbox = newer();
  const { http, probe } = await service(t, sandbox, 'memory://', 150);
  const id = await start(http, await login(http));
  await until(http, id, (job) => job.pages >= 2);
  probe.failNext(ITERATOR, new UpstreamError('SidecarCursorGone', "the iterator's cursor is gone"));
  const done = await until(http, id, (job) => job.state === 'done');
  t.equal(done.paging, 'chunks', 'the job went on through the chunk method');
  t.notOk(done.replay, 'and re-read what it held before going on');
  const chunkCalls = paged(probe, CHUNK);
  t.same(chunkCalls[0].kwargs.max_id, '', 'from the first page: the iterator left no cursor');
  await collected(t, http, id, sandbox);
});

t.test('a restart mid-job: the new process resumes through the chunk method, every item once', async (t) => {
  const sandbox = newer();
  const dir = tempFolder('socialgate-iter-');
  const store = `sqlite://${dir}/sessions.sqlite`;
  const first = await service(t, sandbox, store, 150);
  const headers = await login(first.http);
  const id = await start(first.http, headers);
  const before = await until(first.http, id, (job) => job.pages >= 2);
  t.equal(before.paging, 'iterator', 'the first process read the iterator');
  await first.close();
  const second = await service(t, sandbox, store, 0);
  const done = await until(second.http, id, (job) => job.state === 'done');
  t.equal(done.paging, 'chunks');
  t.equal(paged(second.probe, ITERATOR).length, 0, 'the second process held no cursor: it read no iterator');
  const held = await second.app.services.work!.store.count(`job:${id}`);
  t.equal(held, done.items, 'the store holds each item once');
  const reread = paged(second.probe, CHUNK).length;
  t.equal(reread, Math.ceil(sandbox.world.users.get(FIXED.demo)!.followers.size / PAGE), `the cost: the chunk walk from its first page (${reread} calls)`);
  await collected(t, second.http, id, sandbox);
  await second.close();
});
