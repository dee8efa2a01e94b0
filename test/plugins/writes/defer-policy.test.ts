// Deferred writes under the real account-safety policy, on a clock the test moves (composeApp's
// clock, which the scheduled writes read too). With the like budget spent (one a minute,
// PATCH /policy), a like sent with `Prefer: respond-async` is answered 202 with a deferred write
// timed by the policy's Retry-After; nothing reaches the sandbox while the clock stands, however
// often the queue looks (SOCIALGATE_SCHEDULE_RECHECK_MS); once the clock passes the minute it runs,
// once: one write.completed event and one like more on the sandbox.
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import type { WorkEvent } from '../../../engine/types.js';
import { PASSWORD } from '../../../adapters/upstream/sandbox/index.js';
import { serve, stringBody } from '../../helpers/http.js';
import { patchPolicy } from '../../helpers/policy.js';
import { count, countedUpstream } from '../../helpers/counted-upstream.js';
import { recordEvents, settled } from '../../helpers/writes.js';

const MINUTE = 60_000;
let now = Math.floor(Date.now() / MINUTE) * MINUTE + 1000; // a second into a minute of the policy's clock
const events: WorkEvent[] = [];
const config = testConfig({ policy: 'standard', sessionCacheTtlMs: 0, extra: { SCHEDULE_RECHECK_MS: '50' } });
const { upstream, calls } = countedUpstream();
const app = await composeApp(config, { upstream, clock: () => now });
recordEvents(app, events);
const http = await serve(app);
t.teardown(() => http.close());
const session = stringBody(await http.request('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD } }));
const as = { 'x-session-id': session };
await patchPolicy(http, as, { warmup_days: 0, limits: { like: { minute: 1, hour: 100, day: 1000 } } });

const like = (media_id: string, headers: Record<string, string> = {}) =>
  http.request('POST', '/media/like', { form: { media_id }, headers: { ...as, ...headers } });
const liked = async (id: string) => ((await http.request('GET', '/media', { query: { id }, headers: as })).body as { has_liked?: boolean }).has_liked;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// Two of demo's posts that it has not liked.
const page = await http.request('GET', '/user/posts', { query: { user_id: '5000000001', amount: '20' }, headers: as });
const unliked: string[] = [];
for (const post of (page.body as { items: { id: string }[] }).items) if (unliked.length < 2 && (await liked(post.id)) === false) unliked.push(post.id);
const [first, later] = unliked;

t.test('a like deferred by the spent budget runs once the clock passes the window, once', async (t) => {
  t.equal((await like(first)).status, 200, 'the minute budget spent');
  t.notOk(await liked(later), 'the second post is not liked yet');
  const refused = await like(later);
  t.match(refused, { status: 429, body: { exc_type: 'ActionBudgetExceeded' } }, 'without Prefer: the refusal');
  t.equal(refused.headers.get('retry-after'), '59', "the rest of the policy's minute");

  const reply = await like(later, { prefer: 'respond-async', 'idempotency-key': 'deferred-like' });
  t.equal(reply.status, 202, reply.text);
  t.equal(reply.headers.get('preference-applied'), 'respond-async');
  const item = reply.body as Record<string, unknown>;
  t.match(item, { kind: 'deferred', route: 'POST /media/like', state: 'scheduled', reason: 'ActionBudgetExceeded', idempotency_key: 'deferred-like' });
  t.equal(item.run_at, new Date(now + 59_000).toISOString(), "timed on the policy's clock");
  const repeat = await like(later, { prefer: 'respond-async', 'idempotency-key': 'deferred-like' });
  t.match(repeat, { status: 202, body: { id: item.id } }, 'the keyed repeat replays the same deferred write');
  t.equal(repeat.headers.get('idempotent-replayed'), 'true');

  await sleep(500); // ten looks of the queue, while the clock stands
  t.match(await settled(http, as, String(item.id), 0), { state: 'scheduled' }, 'still waiting');
  t.equal(count(calls, 'media_like'), 1, 'nothing reached the sandbox');

  now += MINUTE;
  const done = await settled(http, as, String(item.id));
  t.match(done, { state: 'completed', result: true });
  t.equal(count(calls, 'media_like'), 2, 'the sandbox saw one like more');
  t.ok(await liked(later), 'the post is liked');
  t.match(
    events.filter((e) => e.data.write_id === item.id),
    [{ type: 'write.completed', data: { kind: 'deferred', idempotency_key: 'deferred-like', result: true } }],
    'one event',
  );
  await sleep(300);
  t.equal(count(calls, 'media_like'), 2, 'and it never ran again');
});
