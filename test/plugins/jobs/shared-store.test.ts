// Two instances sharing Redis, then PostgreSQL (BullMQ and the work store on the session store's server):
// a job started on one is served, watched and exported from the other, and when the instance
// running it is killed mid-job the other takes it over; the export has every item once.
import type { Test } from 'tap';
import { onEachSharedStore } from '../../support/shared-servers.js';
import { randomBytes } from 'node:crypto';
import { BIG } from '../../../adapters/upstream/sandbox/world/big.js';
import { startServices, type Service } from '../../support/service.js';
import { poll } from '../../helpers/poll.js';

type Job = { id: string; state: string; items: number; pages: number };
// 10,000 of the 50,000 followers (50 pages) keep the two pairs of servers' test short.
const LIMIT = 10_000;
const CROWD = Array.from({ length: LIMIT }, (_, i) => String(6_100_000_001 + i));

async function handOver(t: Test, store: string): Promise<void> {
  const env = { SOCIALGATE_JOB_INTERVAL_MS: '0', SOCIALGATE_SANDBOX_LATENCY_MS: '20', SOCIALGATE_WORK_LOCK_MS: '1500' };
  const [a, b] = await startServices(2, { store, key: randomBytes(32).toString('hex'), env, sessionCacheTtlMs: 200 });
  t.teardown(() => Promise.all([a.dispose(), b.dispose()]));
  const session = (await a.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
  const started = await a.request('POST', '/jobs', {
    form: { route: 'GET /user/followers', params: JSON.stringify({ user_id: BIG.pk, amount: '200' }), limit: String(LIMIT) },
    headers: { 'x-session-id': session },
  });
  t.equal(started.status, 202, started.text);
  const id = (started.body as Job).id;
  const status = (on: Service) => async () => (await on.request('GET', `/jobs/status?id=${id}`)).body as Job;
  const seen = await poll('progress seen from the other instance', status(b), (job) => job.pages >= 10);
  t.ok(seen.items >= 2000, `B watches A's job (${seen.items} items)`);
  const partial = (await b.request('GET', `/jobs/results?id=${id}&format=ndjson`)).text.split('\n').filter(Boolean);
  t.ok(partial.length >= seen.items, `B exports what is collected so far (${partial.length})`);
  const listed = (await b.request('GET', '/jobs', { headers: { 'x-session-id': session } })).body as Job[];
  t.ok(
    listed.some((j) => j.id === id),
    'B lists it for the session',
  );
  await a.kill();
  const done = await poll('the job, handed over to B', status(b), (job) => job.state === 'done' || job.state === 'failed', 90_000);
  t.equal(done.state, 'done', 'B finished it');
  const rows = (await b.request('GET', `/jobs/results?id=${id}&format=ndjson`)).text
    .split('\n')
    .filter(Boolean)
    .map((line) => String(JSON.parse(line).pk));
  t.equal(rows.length, LIMIT, 'every follower up to the limit');
  t.same(rows, CROWD, 'once each, in order');
}

onEachSharedStore('two instances', (t, server) => handOver(t, server.url));
