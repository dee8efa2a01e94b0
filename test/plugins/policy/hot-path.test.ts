// The policy's hot path (plugins/policy/policy.ts, `admit`): a session record's calls spend the
// slots its ledger entry holds without any lookup but the record's, and every change that must be
// seen is seen at the next call: new choices (PATCH /policy, or a read after the cache's trust),
// the minute's turn, a limit reached, a preset turned on for a session that had none.
import t from 'tap';
import { testConfig } from '../../../engine/config.js';
import { sessionRef } from '../../../engine/session-record.js';
import type { GuardedCall, RouteSpec, SessionRecord } from '../../../engine/types.js';
import { memoryCounters } from '../../../plugins/policy/counters.js';
import type { Standing } from '../../../plugins/policy/entry.js';
import { policyGuard, rateLimitHeaders, rateLimitWriter } from '../../../plugins/policy/guard.js';
import { Policy } from '../../../plugins/policy/policy.js';

const MINUTE = 60_000;
const TTL = 5_000;
let now = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 1_000; // early in an hour: moving on a minute turns neither the minute nor the hour mid-test
const settle = () => new Promise((resolve) => setImmediate(resolve));

function recordOf(id: string): SessionRecord {
  return Object.freeze({ id, createdAt: now - 30 * 86_400_000, account: { pk: '1' } }) as unknown as SessionRecord;
}

function policyOn(counters = memoryCounters(() => now)) {
  const policy = new Policy(testConfig({ policy: 'standard', sessionCacheTtlMs: TTL }), () => now, undefined, counters);
  t.teardown(() => policy.close());
  return policy;
}

/** One call's answer as the guard sees it: the standing's fields read at once, or the refusal's type. */
async function call(policy: Policy, record: SessionRecord, cls: 'read' | 'like' = 'read') {
  try {
    const standing = await policy.admit(record, cls, 'interactive');
    await settle(); // what is reserved behind the calls lands between them, as between requests
    return standing ? { ...(standing as Standing) } : undefined;
  } catch (error) {
    return { refused: (error as { excType?: string }).excType };
  }
}

t.test('each call moves the standing by one, and a minute turn starts a new one', async (t) => {
  const policy = policyOn();
  const record = recordOf('hot-a');
  await policy.saveSessionPolicy(sessionRef(record.id), { limits: { read: { minute: 500, hour: 5000, day: 50_000 } } });
  const seen: number[] = [];
  for (let i = 0; i < 80; i++) seen.push(((await call(policy, record)) as Standing).remaining);
  t.same(
    seen,
    Array.from({ length: 80 }, (_, i) => 499 - i),
    'remaining 499, 498, ... one less a call, across reservations',
  );
  const last = (await call(policy, record)) as Standing;
  t.match(last, { window: 'minute', limit: 500, remaining: 419, resetAt: Math.floor(now / MINUTE) * MINUTE + MINUTE });
  now += MINUTE;
  const turned = (await call(policy, record)) as Standing;
  t.match(turned, { window: 'minute', remaining: 499, resetAt: Math.floor(now / MINUTE) * MINUTE + MINUTE }, 'the next minute counts from its own start');
  now -= MINUTE;
});

t.test('a limit reached on the hot path refuses at once, and new choices are seen at the next call', async (t) => {
  const policy = policyOn();
  const record = recordOf('hot-b');
  const ref = sessionRef(record.id);
  await policy.saveSessionPolicy(ref, { limits: { like: { minute: 40, hour: 400, day: 4000 } } });
  const answers = [];
  for (let i = 0; i < 45; i++) answers.push(await call(policy, record, 'like'));
  t.equal(answers.filter((a) => a && 'remaining' in a).length, 40, '40 admitted');
  t.same(answers.slice(40), Array(5).fill({ refused: 'ActionBudgetExceeded' }), 'the rest refused');
  await policy.saveSessionPolicy(ref, { limits: { like: { minute: 100, hour: 400, day: 4000 } } });
  t.match(await call(policy, record, 'like'), { limit: 100, remaining: 59 }, 'the raised limit, counted from what the minute used');
  await policy.saveSessionPolicy(ref, { preset: 'off' });
  t.equal(await call(policy, record, 'like'), undefined, 'the preset off: not counted');
});

t.test('a session without a budget is counted from the call after it chooses one', async (t) => {
  const policy = policyOn();
  const record = recordOf('hot-c');
  const ref = sessionRef(record.id);
  await policy.saveSessionPolicy(ref, { preset: 'off' });
  for (let i = 0; i < 3; i++) t.equal(await call(policy, record), undefined, 'not counted');
  await policy.saveSessionPolicy(ref, { preset: 'safe' });
  t.match(await call(policy, record), { window: 'minute' }, 'counted under safe');
});

t.test("another instance's choices are read once the cache's trust ends, behind the calls", async (t) => {
  const counters = memoryCounters(() => now);
  const policy = policyOn(counters);
  const record = recordOf('hot-d');
  const ref = sessionRef(record.id);
  await policy.saveSessionPolicy(ref, { limits: { read: { minute: 300, hour: 3000, day: 30_000 } } });
  t.match(await call(policy, record), { limit: 300 });
  await counters.saveSettings(ref, JSON.stringify({ limits: { read: { minute: 200, hour: 3000, day: 30_000 } } }));
  t.match(await call(policy, record), { limit: 300 }, 'within the trust: the cached choices');
  now += TTL;
  t.match(await call(policy, record), { limit: 300 }, 'past it: this call is not held up, the choices are read behind it');
  t.match(await call(policy, record), { limit: 200 }, 'the next call has the new ones');
  now -= TTL;
});

t.test('a closed policy gives its slots back, and a call after it reserves again', async (t) => {
  const counters = memoryCounters(() => now);
  const policy = policyOn(counters);
  const record = recordOf('hot-e');
  await policy.saveSessionPolicy(sessionRef(record.id), { limits: { read: { minute: 1000, hour: 10_000, day: 100_000 } } });
  for (let i = 0; i < 30; i++) await call(policy, record);
  await policy.ledger.close();
  const key = `${sessionRef(record.id)}:read:hour:${Math.floor(now / 3_600_000) * 3_600_000}`;
  t.same(await counters.read([{ key, expiresAt: now + 3_600_000 }]), [30], 'the hour counts the 30 admitted, no more');
  t.match(await call(policy, record), { remaining: 969 }, 'the 31st call is counted as the 31st');
});

t.test("the guard's RateLimit header follows the clock and the count, call after call of one route", async (t) => {
  const policy = policyOn();
  const record = recordOf('hot-headers');
  await policy.saveSessionPolicy(sessionRef(record.id), { limits: { read: { minute: 500, hour: 5000, day: 50_000 } } });
  const route = { key: 'GET /user', session: 'required', upstreamMethods: ['user_info'], action: 'read' } as unknown as RouteSpec;
  const step = policyGuard(policy).bind(route, {} as never)!;
  const start = now;
  const minuteEnds = Math.floor(start / MINUTE) * MINUTE + MINUTE;
  const values: string[] = [];
  for (const after of [0, 400, 1_500, 1_600, 30_000]) {
    now += after;
    const headers: Record<string, string> = {};
    await step({ session: record, origin: 'http', reply: { headers } } as unknown as GuardedCall, async () => undefined);
    t.equal(headers['RateLimit-Policy'], '"read-minute";q=500;w=60');
    values.push(headers.RateLimit);
    await settle();
  }
  const expected = [0, 400, 1_900, 3_500, 33_500].map((elapsed, i) => `"read-minute";r=${499 - i};t=${Math.ceil((minuteEnds - (start + elapsed)) / 1000)}`);
  t.same(values, expected, 'seconds to the reset counted anew as the clock moves, the remaining count one less a call');
  now = start;
});

t.test('the RateLimit count is the remaining count, digit for digit, as it falls across hundreds and past a change of limits', async (t) => {
  const policy = policyOn();
  const record = recordOf('hot-digits');
  const route = { key: 'GET /user', session: 'required', upstreamMethods: ['user_info'], action: 'read' } as unknown as RouteSpec;
  const step = policyGuard(policy).bind(route, {} as never)!;
  const counts = async (read: Record<string, number>, calls: number) => {
    await policy.saveSessionPolicy(sessionRef(record.id), { limits: { read } });
    const seen: string[] = [];
    for (let i = 0; i < calls; i++) {
      const headers: Record<string, string> = {};
      await step({ session: record, origin: 'http', reply: { headers } } as unknown as GuardedCall, async () => undefined);
      seen.push(headers.RateLimit.replace(/;t=\d+$/, ''));
      await settle();
    }
    return seen;
  };
  const first = await counts({ minute: 1_205, hour: 100_000, day: 1_000_000 }, 230);
  t.same(
    first,
    Array.from({ length: 230 }, (_, i) => `"read-minute";r=${1_204 - i}`),
    '1204 down to 975: across 1200, 1100 and 1000',
  );
  now += TTL; // the new limits are read once the cache's trust ends
  // The hour is now the tightest window, with the same hundreds left (9xx): the kept hundreds belong to the old window's prefix.
  const after = await counts({ minute: 100_000, hour: 1_220, day: 1_000_000 }, 12);
  t.match(after[1], /^"read-hour";r=9\d\d$/);
  const from = Number(after[1].split('r=')[1]);
  t.same(
    after.slice(1),
    after.slice(1).map((_, i) => `"read-hour";r=${from - i}`),
    'counting on under the new limits, one less a call',
  );
  now -= TTL;
  const odd = [0, 7, 99, 100, 101, 110, 1_000, 1_001, 999_999_999, 2 ** 53, 12.5];
  const written = odd.map((remaining) => {
    const headers: Record<string, string> = {};
    rateLimitHeaders(headers, 'like', { window: 'hour', limit: 2 ** 53, remaining, resetAt: now + 1_000 }, now);
    return headers.RateLimit;
  });
  t.same(
    written,
    odd.map((r) => `"like-hour";r=${r};t=1`),
  );
});

t.test("one route's RateLimit values, call after call: the same as made one by one, as the count and the clock move", async (t) => {
  // The writer keeps the count's hundreds and the `t` part (guard.ts): this walk crosses hundreds,
  // seconds in the middle of a hundred, jumps up and down (another instance's reservations, a
  // change of limits), counts under 100 and back, against the values made whole.
  const write = rateLimitWriter('like');
  const start = 1_800_000_000_000;
  let remaining = 480;
  let clock = start;
  const steps: [number, number][] = [];
  for (let i = 0; i < 600; i++) {
    remaining += i % 97 === 0 ? 150 : i % 131 === 0 ? -260 : -1;
    if (remaining < 0) remaining = 1_005;
    clock += i % 7 === 0 ? 400 : 3;
    steps.push([remaining, clock]);
  }
  const resetAt = start + 3_600_000;
  const wrong: string[] = [];
  for (const [count, now] of steps) {
    const headers: Record<string, string> = {};
    write(headers, { window: 'hour', limit: 2_000, remaining: count, resetAt }, now);
    const expected = `"like-hour";r=${count};t=${Math.ceil((resetAt - now) / 1000)}`;
    if (headers.RateLimit !== expected) wrong.push(`${headers.RateLimit} for ${expected}`);
  }
  t.same(wrong, [], `600 calls, ${new Set(steps.map(([, now]) => Math.ceil((resetAt - now) / 1000))).size} seconds`);
  t.ok(steps.some(([count]) => count < 100) && steps.some(([count]) => count > 1_000), 'the walk went under 100 and over 1000');
});
