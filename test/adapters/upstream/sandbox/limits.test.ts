// The sandbox models the platform's hidden limits per action class. Limits are
// drawn from the seed and the account within each class's range; past its limit a class raises
// FeedbackRequired (with the block's wait as its hint) until the block ends, and the other classes
// go on. Through socialgate with no policy, likes as fast as possible meet the block after the
// sandbox's like limit (a few hundred), only likes freeze, follows and reads still work.
import t from 'tap';
import { composeApp } from '../../../../bin/compose.js';
import { testConfig } from '../../../../engine/config.js';
import { UpstreamError } from '../../../../engine/types.js';
import { createSandbox, FIXED } from '../../../../adapters/upstream/sandbox/index.js';
import { hiddenLimit, LIMIT_RANGES, limitedClassOf, type LimitedClass } from '../../../../adapters/upstream/sandbox/limits.js';
import { serve } from '../../../helpers/http.js';
import { loginAs } from '../../../helpers/sandbox.js';

const media = '3955340313237098052_5000000001';
const classes = Object.keys(LIMIT_RANGES) as LimitedClass[];

t.test('hidden limits: within each class range, the same for a seed, different across accounts and seeds', async (t) => {
  for (const cls of classes) {
    const [low, high] = LIMIT_RANGES[cls];
    const drawn = Array.from({ length: 50 }, (_, i) => hiddenLimit(7, String(6_000_000 + i), cls));
    t.ok(
      drawn.every((n) => n >= low && n <= high),
      `${cls}: every limit in ${low}..${high}`,
    );
    t.ok(new Set(drawn).size > 5, `${cls}: accounts differ`);
    t.equal(hiddenLimit(7, '6000001', cls), hiddenLimit(7, '6000001', cls), `${cls}: deterministic`);
  }
  t.ok(
    classes.some((cls) => hiddenLimit(1, FIXED.demo, cls) !== hiddenLimit(2, FIXED.demo, cls)),
    'another seed draws other limits',
  );
  t.equal(hiddenLimit(1, FIXED.demo, 'like', 0.1), Math.round(hiddenLimit(1, FIXED.demo, 'like') / 10), 'the scale multiplies');
});

const sandbox = createSandbox({ seed: 1, blockSeconds: 900 });
const app = await composeApp(testConfig(), { upstream: sandbox });
const http = await serve(app);
t.teardown(() => http.close());

t.test('the sandbox counts each method as the class of the routes that call it', async (t) => {
  const counted = new Set<string>();
  for (const route of app.manifest.routes) {
    for (const call of route.calls) {
      const cls = limitedClassOf(call.method);
      if (!cls) continue;
      t.equal(cls, route.action, `${route.key}: ${call.method} counts as its route's class`);
      counted.add(cls);
    }
  }
  t.same([...counted].sort(), [...classes].sort(), 'every limited class is counted on some route');
});

t.test('past its limit a class is blocked for the block time, the others go on, then it is allowed again', async (t) => {
  let now = 1_800_000_000_000;
  const sandbox = createSandbox({ seed: 1, now: () => now, blockSeconds: 600 });
  const client = await loginAs(sandbox);
  const limit = hiddenLimit(1, FIXED.demo, 'like');
  for (let i = 0; i < limit; i++) await client.call('media_like', { media_id: media });
  const blocked = await client.call('media_like', { media_id: media }).catch((error: unknown) => error);
  t.ok(blocked instanceof UpstreamError && blocked.excType === 'FeedbackRequired', 'the like after the limit is blocked');
  t.equal((blocked as UpstreamError).retryAfter, 600, 'the block says how long it lasts');
  t.match((blocked as UpstreamError).lastJson, { message: 'feedback_required', feedback_title: 'Try Again Later' });
  t.equal(await client.call('user_follow', { user_id: FIXED.demo_2fa }), true, 'a follow still works');
  now += 599_000;
  const still = await client.call('media_unlike', { media_id: media }).catch((error: unknown) => error);
  t.equal((still as UpstreamError).retryAfter, 1, 'an unlike is a like too, blocked to the end');
  now += 1_000;
  t.equal(await client.call('media_like', { media_id: media }), true, 'after the block, likes work again');
});

t.test('SANDBOX_LIMIT_SCALE 0 lifts the limits', async (t) => {
  const client = await loginAs(createSandbox({ seed: 1, limitScale: 0 }));
  const over = LIMIT_RANGES.like[1] + 1;
  for (let i = 0; i < over; i++) await client.call('media_like', { media_id: media });
  t.pass(`${over} likes (over the highest like limit), none blocked`);
});

t.test('through socialgate with no policy: likes as fast as possible meet the block; only likes freeze', async (t) => {
  const session = (await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
  const as = { 'x-session-id': session };
  const like = () => http.request('POST', '/media/like', { form: { media_id: media }, headers: as });
  let admitted = 0;
  let reply = await like();
  while (reply.status === 200 && admitted < 1000) {
    admitted++;
    reply = await like();
  }
  const limit = hiddenLimit(1, FIXED.demo, 'like');
  t.equal(admitted, limit, `the sandbox admitted its hidden like limit (${limit}) before it blocked`);
  t.ok(limit < 500, 'the like limit is reached within a few hundred likes');
  t.equal(reply.status, 429);
  t.match(reply.body, { exc_type: 'FeedbackRequired' });
  t.equal(reply.headers.get('retry-after'), '900', "the platform's block length");
  const next = await like();
  t.equal(next.status, 429);
  t.match(next.body, { exc_type: 'ActionFrozen', action: 'like' }, 'the next like is refused by socialgate');
  t.equal((await http.request('POST', '/user/follow', { form: { user_id: FIXED.demo_2fa }, headers: as })).status, 200, 'follows still work');
  t.equal((await http.request('GET', '/account', { headers: as })).status, 200, 'reads still work');
});
