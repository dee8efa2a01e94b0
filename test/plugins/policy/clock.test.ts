// The policy on a clock the test moves (composeApp's clock): a new session's write budgets
// ramp from the warm-up's start to the preset over its days, reads do not; an activity window in
// the session's own timezone refuses writes outside it with Retry-After until it opens, leaves reads
// alone, and GET /policy says where both stand.
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { serve, stringBody } from '../../helpers/http.js';
import { countingSandbox, patchPolicy } from '../../helpers/policy.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
let now = Date.now();
const { upstream, calls } = countingSandbox();
const config = testConfig({ policy: 'standard', extra: { POLICY_WARMUP_DAYS: '10', POLICY_WARMUP_START: '0.2' } });
const app = await composeApp(config, { upstream, clock: () => now });
const http = await serve(app);
t.teardown(() => http.close());
const tz = 3600; // UTC+1, as the session logs in with
const session = stringBody(await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password', timezone: String(tz) } }));
const as = { 'x-session-id': session };
// The warm-up counts from the session's making.
const start = (await app.services.sessions.find(session))!.createdAt;
now = start;
type View = {
  warmup: { day: number; fraction: number; complete: boolean };
  window: null | { open: boolean; opens_at: string | null; timezone_offset: number };
  classes: Record<string, { limits: Record<string, number> }>;
};
const view = async () => (await http.request('GET', '/policy', { headers: as })).body as View;

t.test('warm-up: write budgets ramp over the days, reads do not', async (t) => {
  const first = await view();
  t.match(first.warmup, { day: 0, complete: false });
  t.ok(Math.abs(first.warmup.fraction - 0.2) < 0.01, `starts at the fraction (${first.warmup.fraction})`);
  t.same(first.classes.like.limits, { minute: 1, hour: 4, day: 60 }, 'a fifth of standard');
  t.same(first.classes.read.limits, { minute: 60, hour: 1200, day: 12000 }, 'reads at the preset');
  now = start + 5 * DAY;
  const half = await view();
  t.match(half.warmup, { day: 5, complete: false });
  t.same(half.classes.like.limits, { minute: 1, hour: 12, day: 180 }, 'three fifths after five of ten days');
  now = start + 10 * DAY;
  const done = await view();
  t.match(done.warmup, { day: 10, fraction: 1, complete: true });
  t.same(done.classes.like.limits, { minute: 3, hour: 20, day: 300 });
});

t.test('activity window: writes outside it wait for it, reads go on', async (t) => {
  // The next local midnight after the warm-up, then 23:00 local (window closed) and 08:30 (open).
  const midnight = Math.ceil((start + 10 * DAY + tz * 1000) / DAY) * DAY - tz * 1000;
  now = midnight + 23 * HOUR;
  const patched = (await patchPolicy(http, as, { window_start: '08:00', window_end: '22:00' })) as View;
  t.match(patched.window, { open: false, timezone_offset: tz, opens_at: new Date(midnight + 32 * HOUR).toISOString() });
  const before = calls.length;
  const like = await http.request('POST', '/media/like', { form: { media_id: '3955340313237098052_5000000001' }, headers: as });
  t.equal(like.status, 429, like.text);
  t.match(like.body, { exc_type: 'OutsideActivityWindow', action_class: 'like', opens_at: new Date(midnight + 32 * HOUR).toISOString() });
  t.equal(like.headers.get('retry-after'), String(9 * 3600), 'until 08:00 local');
  t.equal(calls.length, before, 'the sandbox saw no call');
  t.equal((await http.request('GET', '/account', { headers: as })).status, 200, 'reads follow the setting: allowed');
  now = midnight + 32.5 * HOUR;
  t.match((await view()).window, { open: true, opens_at: null });
  const later = await http.request('POST', '/media/like', { form: { media_id: '3955340313237098052_5000000001' }, headers: as });
  t.equal(later.status, 200, later.text);
  // The guard keeps an open window's closing time (no clock arithmetic per call): at 22:00 local it closes all the same.
  now = midnight + 46 * HOUR;
  const closed = await http.request('POST', '/media/like', { form: { media_id: '3955340313237098052_5000000001' }, headers: as });
  t.match(closed.body, { exc_type: 'OutsideActivityWindow' }, closed.text);
  t.equal(closed.headers.get('retry-after'), String(10 * 3600), 'until 08:00 local the next day');
  // A window across midnight: 22:00 to 06:00 is open at 23:00.
  now = midnight + 47 * HOUR;
  t.match(((await patchPolicy(http, as, { window_start: '22:00', window_end: '06:00' })) as View).window, { open: true });
  t.equal((await patchPolicy(http, as, { window_start: '' })).window, null, 'an empty start removes it');
});
