// A write sent with `Prefer: respond-async` that the policy refuses for its budget
// (a stand-in guard refusing as the policy does: 429 ActionBudgetExceeded with Retry-After) is
// answered 202 with a deferred write, which runs when the policy allows: not while the budget is
// still spent (put off again), once it returns, once. Any other refusal, or no Prefer, is answered as
// it is. Point 6: write.completed and write.failed carry the idempotency key.
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { HttpError } from '../../../engine/http-error.js';
import { serviceError } from '../../../plugins/pools/errors.js';
import type { GuardedCall, RouteGuard, WorkEvent } from '../../../engine/types.js';
import { PASSWORD } from '../../../adapters/upstream/sandbox/index.js';
import { prefersAsync } from '../../../plugins/writes/defer.js';
import { POLICY_ORDER } from '../../../plugins/policy/module.js';
import { serve, stringBody } from '../../helpers/http.js';
import { count, countedUpstream } from '../../helpers/counted-upstream.js';
import { recordEvents, settled } from '../../helpers/writes.js';

/** Spends the like budget until `spentUntil`, refusing as the policy would, for every origin (background runs too). */
let spentUntil = 0;
let otherRefusal = false;
const origins: string[] = [];
const standInPolicy: RouteGuard = {
  name: 'stand-in-policy',
  bind: (route) =>
    route.action !== 'like'
      ? undefined
      : async (call: GuardedCall, next) => {
          origins.push(call.origin);
          if (otherRefusal) throw serviceError('PoolsUnavailable', 'refused for another reason');
          // Retry-After is a guess, as a budget's is: 1 s, even when it comes back later.
          if (spentUntil > Date.now()) throw new HttpError(429, 'The like budget is spent', { excType: 'ActionBudgetExceeded', retryAfter: 1 });
          return next();
        },
};

const { upstream, calls } = countedUpstream();
const events: WorkEvent[] = [];
// The product's deferral guard wraps the stand-in as it wraps the policy: the stand-in sits just outside the policy.
const placedGuards = [{ order: POLICY_ORDER - 1, guard: standInPolicy }];
const app = await composeApp(testConfig({ sessionCacheTtlMs: 0 }), { upstream, placedGuards });
recordEvents(app, events);
const http = await serve(app);
t.teardown(() => http.close());
const session = stringBody(await http.request('POST', '/auth/login', { form: { username: 'demo', password: PASSWORD } }));
const as = { 'x-session-id': session };
const media = '3955340313237098052_5000000001';
const like = (headers: Record<string, string>, media_id = media) => http.request('POST', '/media/like', { form: { media_id }, headers: { ...as, ...headers } });

t.test('Prefer is read as RFC 7240 writes it', async (t) => {
  for (const header of ['respond-async', 'Respond-Async', 'wait=10, respond-async', 'respond-async; foo=bar']) t.ok(prefersAsync(header), header);
  for (const header of ['', 'return=minimal', 'respond-asynchronously']) t.notOk(prefersAsync(header), header);
});

t.test('without Prefer, or for another refusal, the answer is the refusal', async (t) => {
  spentUntil = Date.now() + 60_000;
  t.teardown(() => void (spentUntil = 0));
  t.match(await like({}), { status: 429, body: { exc_type: 'ActionBudgetExceeded' } });
  otherRefusal = true;
  t.teardown(() => void (otherRefusal = false));
  t.match(await like({ prefer: 'respond-async' }), { status: 503, body: { exc_type: 'PoolsUnavailable' } });
  t.equal((await http.request('GET', '/writes/scheduled', { headers: as })).text, '[]', 'nothing was deferred');
  t.equal(count(calls, 'media_like'), 0);
});

t.test('a deferred like waits for its budget, is put off while it is still spent, then runs once', async (t) => {
  // Retry-After says 1 s; the budget comes back after 1.6 s, so the first run at 1 s is refused again.
  spentUntil = Date.now() + 1600;
  origins.length = 0;
  const reply = await like({ prefer: 'respond-async', 'idempotency-key': 'like-1' });
  t.equal(reply.status, 202, reply.text);
  t.equal(reply.headers.get('preference-applied'), 'respond-async');
  const item = reply.body as Record<string, unknown>;
  t.match(item, {
    kind: 'deferred',
    route: 'POST /media/like',
    state: 'scheduled',
    reason: 'ActionBudgetExceeded',
    idempotency_key: 'like-1',
    params: { media_id: media },
  });
  t.equal(count(calls, 'media_like'), 0, 'not sent when refused');
  const done = await settled(http, as, String(item.id));
  t.match(done, { state: 'completed', result: true });
  t.ok(Date.parse(String(done.finished_at)) >= spentUntil, 'it ran once the budget was back');
  t.same(origins, ['http', 'background', 'background'], 'refused at the request and at its first run, allowed at the second');
  t.equal(count(calls, 'media_like'), 1, 'liked once');
  t.match(
    events.filter((e) => e.data.write_id === item.id),
    [{ type: 'write.completed', data: { kind: 'deferred', idempotency_key: 'like-1', result: true } }],
  );
});

t.test('a deferred write that fails when it runs is a write.failed event', async (t) => {
  spentUntil = Date.now() + 500;
  const reply = await like({ prefer: 'respond-async', 'idempotency-key': 'like-2' }, '1_5000000001');
  t.equal(reply.status, 202, reply.text);
  const item = reply.body as { id: string };
  const done = await settled(http, as, item.id);
  t.match(done, { state: 'failed', error: { status: 404 } });
  t.match(
    events.filter((e) => e.data.write_id === item.id),
    [{ type: 'write.failed', data: { idempotency_key: 'like-2', status: 404 } }],
  );
});
