// The background toolkit (adapters/work/toolkit): back-off steps, jitter and deferral as case
// tables; session health; and paced session work: an unhealthy session pauses without a call, a
// refusal with Retry-After (the platform's or this service's policy) pauses until then, a
// logged-out answer pauses, anything else fails; and the bounded wait of a close.
import t from 'tap';
import { deferralOf, healthOf, jittered, PacedWork, settledWithin, stepOf } from '../../../adapters/work/toolkit/index.js';
import { HttpError } from '../../../engine/http-error.js';
import type { SessionRecord } from '../../../engine/types.js';

t.test('stepOf: the step after the nth failure, the last one repeating', async (t) => {
  const cases: [readonly number[], number, number][] = [
    [[5, 50, 500], 1, 5],
    [[5, 50, 500], 2, 50],
    [[5, 50, 500], 3, 500],
    [[5, 50, 500], 9, 500],
    [[5, 50, 500], 0, 5],
    [[5, 50, 500], -3, 5],
    [[7], 4, 7],
    [[], 1, 1000],
    [[5, 50], 1.9, 5],
  ];
  for (const [steps, failures, expected] of cases) t.equal(stepOf(steps, failures), expected, `[${steps}] after ${failures} → ${expected}`);
});

t.test('jittered: within ±spread of the interval, never negative', async (t) => {
  const cases: [number, number, number, number][] = [
    // ms, spread, random, expected
    [1000, 0.2, 0, 800],
    [1000, 0.2, 0.5, 1000],
    [1000, 0.2, 0.999999, 1200],
    [1000, 0.25, 0, 750],
    [1000, 0.25, 1, 1250],
    [1000, 0, 0.9, 1000],
    [1000, 3, 0, 0],
    [0, 0.2, 0.7, 0],
    [-5, 0.2, 0.7, 0],
    [10, 0.5, 0.25, 8],
  ];
  for (const [ms, spread, random, expected] of cases)
    t.equal(
      jittered(ms, spread, () => random),
      expected,
      `${ms} ±${spread} at ${random} → ${expected}`,
    );
  for (let i = 0; i < 200; i++) {
    const value = jittered(1000, 0.2);
    if (value < 800 || value > 1200) t.fail(`out of range: ${value}`);
  }
});

t.test('deferralOf: a 429 or 503 that says when to come back', async (t) => {
  const cases: [number, number | undefined, number | undefined][] = [
    [429, 30, 30_000],
    [503, 2, 2000],
    [429, 0, 0],
    [429, undefined, undefined],
    [500, 30, undefined],
    [401, 30, undefined],
    [429, -1, undefined],
    [429, Number.NaN, undefined],
    [429, 0.5, 500],
  ];
  for (const [status, retryAfter, expected] of cases) t.equal(deferralOf(status, retryAfter), expected, `${status} Retry-After ${retryAfter} → ${expected}`);
});

const NOW = 1_000_000;
const record = (over: Partial<SessionRecord> = {}): SessionRecord =>
  ({ id: 's1', account: { pk: '1', username: 'a' }, settings: {}, state: 'active', createdAt: 0, lastUsedAt: 0, ...over }) as SessionRecord;

t.test('healthOf: the record alone says whether work may use the session', async (t) => {
  const cases: [SessionRecord | undefined, string, string | undefined][] = [
    [record(), 'healthy', undefined],
    [undefined, 'quarantined', 'revoked'],
    [record({ throttledUntil: NOW + 5 }), 'cooling', 'throttled'],
    [record({ throttledUntil: NOW - 5 }), 'healthy', undefined],
    [record({ state: 'challenge' }), 'quarantined', 'challenge'],
    [record({ state: 'logged_out' }), 'quarantined', 'logged_out'],
  ];
  for (const [given, state, reason] of cases)
    t.same([healthOf(given, NOW).state, healthOf(given, NOW).reason], [state, reason], `${given?.state ?? 'none'} → ${state}`);
});

/** The registry's view of an error, as services.routes.statusOf gives it. */
const statusOf = (error: unknown) =>
  error instanceof HttpError ? { status: error.status, excType: error.excType, retryAfter: error.retryAfter } : { status: 500, excType: 'Error' };

function paced(current: SessionRecord | undefined = record()): PacedWork {
  return new PacedWork({ sessions: { find: async () => current }, routes: { statusOf }, now: () => NOW });
}

t.test('paced work: runs a healthy session, pauses an unhealthy one without calling', async (t) => {
  let calls = 0;
  t.same(await paced().run(record(), async () => ++calls), { value: 1 });
  const throttled = await paced().run(record({ throttledUntil: NOW + 9000 }), async () => ++calls);
  t.match(throttled, { pause: { reason: 'throttled', until: NOW + 9000 } });
  t.match(await paced().run(undefined, async () => ++calls), { pause: { reason: 'revoked' } });
  t.equal(calls, 1, 'no call for an unhealthy or missing session');
});

t.test('paced work: a refusal with Retry-After pauses until then; others fail', async (t) => {
  const reasons: Record<string, string> = { ActionBudgetExceeded: 'budget', OutsideActivityWindow: 'window', ActionFrozen: 'frozen', SessionBusy: 'deferred' };
  for (const [code, reason] of Object.entries(reasons)) {
    const refusal = new HttpError(code === 'SessionBusy' ? 503 : 429, 'refused', { excType: code, retryAfter: 120 });
    t.same(
      await paced().run(record(), async () => Promise.reject(refusal)),
      {
        pause: { reason, until: NOW + 120_000, exc_type: code, detail: `Refused with ${code}; the work resumes in 120 s.` },
      },
      `${code} pauses`,
    );
  }
  const fell = await paced(record({ state: 'challenge' })).run(record(), async () => Promise.reject(new HttpError(403, 'x', { excType: 'ChallengeRequired' })));
  t.match(fell, { pause: { reason: 'challenge' } }, 'a session that fell ill during the call pauses on its health');
  t.match(await paced().run(record(), async () => Promise.reject(new HttpError(401, 'x', { excType: 'LoginRequired' }))), { pause: { reason: 'logged_out' } });
  await t.rejects(
    paced().run(record(), async () => Promise.reject(new HttpError(429, 'x', { excType: 'PleaseWaitFewMinutes' }))),
    /x/,
    'a 429 with no Retry-After fails',
  );
  await t.rejects(
    paced().run(record(), async () => Promise.reject(new Error('boom'))),
    /boom/,
    'any other failure is thrown',
  );
});

t.test('paced work: spacing between runs of one session', async (t) => {
  let now = NOW;
  const work = new PacedWork({ sessions: { find: async () => record() }, routes: { statusOf }, now: () => now });
  t.equal(work.waitFor('s1', 1000), 0, 'the first run waits for nothing');
  work.ran('s1');
  now += 300;
  t.equal(work.waitFor('s1', 1000), 700);
  t.equal(work.waitFor('s2', 1000), 0, 'another session is not held back');
  t.equal(work.waitFor('s1', 0), 0, 'no spacing set');
  now += 800;
  t.equal(work.waitFor('s1', 1000), 0);
});

t.test('settledWithin: waits for work that settles, failures included, and no longer than its bound', async (t) => {
  const started = performance.now();
  const settled: string[] = [];
  const soon = (ms: number, fail = false) =>
    new Promise((resolve, reject) => setTimeout(() => (settled.push(`${ms}`), fail ? reject(new Error('down')) : resolve(ms)), ms));
  await settledWithin([soon(10), soon(20, true)], 2000);
  t.same(settled, ['10', '20'], 'both waited for, the failure too');
  t.ok(performance.now() - started < 1000, 'and not the bound');
  const hangs = new Promise(() => undefined);
  const bounded = performance.now();
  await settledWithin([hangs, soon(5)], 100);
  const waited = performance.now() - bounded;
  t.ok(waited >= 95 && waited < 1000, `a hanging one is given up at the bound (${waited.toFixed(0)} ms)`);
  await settledWithin([], 50);
  t.pass('nothing to wait for: at once');
});
