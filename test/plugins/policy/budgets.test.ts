// Budgets per session and action class (plugins/policy): for each class of the manifest, a call
// over its budget answers 429 ActionBudgetExceeded with Retry-After, a body naming the class, the
// window, the limit and the reset, and both rate-limit headers, and the sandbox sees no call; a
// budgeted answer carries the headers; an MCP tool call over budget is a tool error of that type;
// PATCH /policy names a bad field; /metrics counts refusals by class and reason.
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { ACTION_CLASSES, type RouteSpec } from '../../../engine/types.js';
import { budgeted } from '../../../plugins/policy/guard.js';
import { missingFromExample } from '../../helpers/examples.js';
import { errorOf, mcpOverHttp } from '../../helpers/mcp.js';
import { countingSandbox, patchPolicy, sendExample, servedWithSession } from '../../helpers/policy.js';

const { upstream, calls } = countingSandbox();
const app = await composeApp(testConfig({ policy: 'standard' }), { upstream });
const { http, as } = await servedWithSession(app);
t.teardown(() => http.close());

/** For each class, a budgeted route whose documented example needs no file. */
function routeOf(cls: string): RouteSpec | undefined {
  const fits = (route: RouteSpec) =>
    route.action === cls && budgeted(route) && !route.params.some((p) => p.type === 'file') && missingFromExample(route).length === 0;
  return app.services.routes.routes.filter(fits).sort((a, b) => a.key.localeCompare(b.key))[0];
}

t.test('each class: the call past its budget is refused before the platform, with the headers and the body', async (t) => {
  for (const cls of ACTION_CLASSES) {
    const route = routeOf(cls);
    if (!t.ok(route, `a ${cls} route with a complete example`)) continue;
    // The hour and day raised too: a new session's warm-up leaves some classes one call an hour.
    await patchPolicy(http, as, { limits: { [cls]: { minute: 1, hour: 100, day: 1000 } } });
    const first = await sendExample(http, route!, as);
    t.not(first.status, 429, `${route!.key}: the first call is within the budget (${first.text.slice(0, 120)})`);
    t.match(first.headers.get('ratelimit-policy'), `"${cls}-minute";q=1;w=60`, `${route!.key}: the budgeted answer names its policy`);
    t.match(first.headers.get('ratelimit'), new RegExp(`^"${cls}-minute";r=0;t=\\d+$`));
    const before = calls.length;
    const over = await sendExample(http, route!, as);
    t.equal(over.status, 429, `${route!.key}: ${over.text.slice(0, 200)}`);
    t.match(over.body, { exc_type: 'ActionBudgetExceeded', action_class: cls, window: 'minute', limit: 1, reset_at: /^\d{4}-\d\d-\d\dT/ });
    const retry = Number(over.headers.get('retry-after'));
    t.ok(retry >= 1 && retry <= 60, `${route!.key}: Retry-After ${retry}`);
    t.match(over.headers.get('ratelimit-policy'), `"${cls}-minute";q=1;w=60`);
    t.match(over.headers.get('ratelimit'), new RegExp(`^"${cls}-minute";r=0;t=\\d+$`));
    t.equal(calls.length, before, `${route!.key}: the sandbox saw no call`);
  }
});

type Windows = Record<string, number>;
interface PolicyView {
  preset: string;
  classes: Record<string, { preset: Windows; limits: Windows; used: Windows; resets: Record<string, string> }>;
  frozen: unknown;
  warmup: { complete: boolean };
}

t.test('GET /policy shows the limits, the overrides and what was used', async (t) => {
  const view = (await http.request('GET', '/policy', { headers: as })).body as PolicyView;
  t.equal(view.preset, 'standard');
  t.same(view.classes.like.preset, { minute: 3, hour: 20, day: 300 });
  t.same(view.classes.like.limits.minute, 1, 'the override wins');
  t.equal(view.classes.like.used.day, 1, 'the admitted call, not the refused one (the day: a minute may have turned since)');
  t.ok(Date.parse(view.classes.like.resets.hour) > Date.now());
  t.same(view.frozen, {});
  t.equal(view.warmup.complete, false, 'a new session warms up');
});

t.test('an MCP tool call over budget is a tool error of the same type', async (t) => {
  await patchPolicy(http, as, { limits: { like: { minute: 0 } } });
  const client = await mcpOverHttp(http.url, as);
  t.teardown(() => client.close());
  const before = calls.length;
  t.match(errorOf(await client.callTool({ name: 'postMediaLike', arguments: { media_id: '3955340313237098052_5000000001' } })), {
    exc_type: 'ActionBudgetExceeded',
    action_class: 'like',
    limit: 0,
  });
  t.equal(calls.length, before, 'the sandbox saw no call');
});

t.test('PATCH /policy names the field it refuses', async (t) => {
  const cases: [Record<string, string>, string][] = [
    [{ preset: 'reckless' }, 'preset'],
    [{ limits: JSON.stringify({ likes: { hour: 1 } }) }, 'limits'],
    [{ limits: JSON.stringify({ like: { hour: -1 } }) }, 'limits'],
    [{ window_start: '25:00', window_end: '08:00' }, 'window_start'],
    [{ window_start: '08:00' }, 'window_end'],
    [{ warmup_days: '-1' }, 'warmup_days'],
  ];
  for (const [form, param] of cases) {
    const reply = await http.request('PATCH', '/policy', { form, headers: as });
    t.equal(reply.status, 422, `${JSON.stringify(form)}: ${reply.text.slice(0, 160)}`);
    t.match(reply.body, { exc_type: 'ValidationError', errors: [{ param }] });
  }
});

t.test('/metrics counts the refusals by class and reason', async (t) => {
  const text = (await http.request('GET', '/metrics')).text;
  t.match(text, /socialgate_policy_refusals_total\{class="like",reason="budget"\} [1-9]/);
  t.match(text, /socialgate_policy_refusals_total\{class="read",reason="budget"\} [1-9]/);
});

t.test('with the preset off, a session is not counted until it chooses a preset', async (t) => {
  const off = await composeApp(testConfig({ policy: 'off' }), { upstream: countingSandbox().upstream });
  const { http: other, as: session } = await servedWithSession(off);
  t.teardown(() => other.close());
  const like = await other.request('POST', '/media/like', { form: { media_id: '3955340313237098052_5000000001' }, headers: session });
  t.equal(like.status, 200, like.text);
  t.equal(like.headers.get('ratelimit'), null, 'no budget, no header');
  await patchPolicy(other, session, { preset: 'safe' });
  const counted = await other.request('POST', '/media/like', { form: { media_id: '3955340313237098052_5000000001' }, headers: session });
  t.match(counted.headers.get('ratelimit-policy'), /^"like-minute";q=\d+;w=60$/);
});

t.test("the console lists each session's budgets used today", async (t) => {
  const list = (await http.request('GET', '/console/sessions')).body as { sessions: { budgets: unknown }[] };
  t.match(list.sessions[0].budgets, { window: null, today: { like: '1/1000', read: '1/1000' } });
});
