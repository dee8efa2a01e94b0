// Route guards (engine/types/guards.ts): a feature's step around a route's upstream work meets every
// caller in one place. A recording guard sees HTTP requests, MCP tool calls and background runs with
// their origin, after validation (a 422 never reaches it) and before the upstream call (a refusal
// leaves the sandbox untouched); its headers go on the answer, a refusal's included; guards nest
// outermost first; a route no guard binds to runs as before.
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { serviceError } from '../../../plugins/pools/errors.js';
import type { GuardedCall, RouteGuard } from '../../../engine/types.js';
import { serve } from '../../helpers/http.js';
import { countedUpstream } from '../../helpers/counted-upstream.js';
import { answerOf, errorOf, mcpOverHttp } from '../../helpers/mcp.js';

const seen: { guard: string; route: string; origin: string; media?: unknown }[] = [];
let refuse = false;
const recording = (name: string): RouteGuard => ({
  name,
  // Writes only: reads are left unbound, so they run with no guard at all.
  bind: (route) =>
    route.method === 'GET'
      ? undefined
      : async (call: GuardedCall, next) => {
          seen.push({ guard: name, route: call.route.key, origin: call.origin, media: call.bag.media_id });
          call.reply.headers[`x-${name}`] = 'seen';
          if (refuse && name === 'inner') throw serviceError('PoolsUnavailable', 'refused by the test guard');
          return next();
        },
});

const { upstream, calls } = countedUpstream();
const app = await composeApp(testConfig({ logLevel: 'silent' }), { upstream, guards: [recording('outer'), recording('inner')] });
const http = await serve(app);
t.teardown(() => http.close());
const session = (await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
const as = { 'x-session-id': session };
const media = '3955340313237098052_5000000001';

t.test('an HTTP write passes both guards, outermost first, and carries their headers', async (t) => {
  seen.length = 0;
  const reply = await http.request('POST', '/media/like', { form: { media_id: media }, headers: as });
  t.equal(reply.status, 200, reply.text);
  t.same(
    seen.map((s) => [s.guard, s.origin, s.media]),
    [
      ['outer', 'http', media],
      ['inner', 'http', media],
    ],
  );
  t.equal(reply.headers.get('x-outer'), 'seen');
  t.equal(reply.headers.get('x-inner'), 'seen');
});

t.test('a read is bound to no guard', async (t) => {
  seen.length = 0;
  t.equal((await http.request('GET', '/account', { headers: as })).status, 200);
  t.same(seen, []);
});

t.test('invalid input is refused before any guard', async (t) => {
  seen.length = 0;
  t.equal((await http.request('POST', '/media/like', { form: {}, headers: as })).status, 422);
  t.same(seen, []);
});

t.test("a refusal stops the call before the platform, and keeps the guards' headers", async (t) => {
  seen.length = 0;
  refuse = true;
  t.teardown(() => void (refuse = false));
  const before = calls.length;
  const reply = await http.request('POST', '/media/like', { form: { media_id: media }, headers: as });
  t.equal(reply.status, 503, reply.text);
  t.equal(reply.headers.get('x-outer'), 'seen');
  t.equal(reply.headers.get('x-inner'), 'seen');
  t.equal(calls.length, before, 'the sandbox saw no call');
});

t.test('an MCP tool call meets the same guards as an MCP origin', async (t) => {
  seen.length = 0;
  const client = await mcpOverHttp(http.url, as);
  t.teardown(() => client.close());
  answerOf(await client.callTool({ name: 'postMediaLike', arguments: { media_id: media } }));
  t.same(
    seen.map((s) => [s.guard, s.origin]),
    [
      ['outer', 'mcp'],
      ['inner', 'mcp'],
    ],
  );
  refuse = true;
  t.teardown(() => void (refuse = false));
  t.match(errorOf(await client.callTool({ name: 'postMediaLike', arguments: { media_id: media } })), { exc_type: 'PoolsUnavailable' });
});

t.test('background work runs through the guards as background', async (t) => {
  seen.length = 0;
  const record = await app.services.sessions.find(session);
  const route = app.services.routes.route('POST /media/like')!;
  await app.services.routes.run(route, app.services.routes.input(route, { media_id: media }), record!, new AbortController().signal);
  t.same(
    seen.map((s) => [s.guard, s.origin]),
    [
      ['outer', 'background'],
      ['inner', 'background'],
    ],
  );
});
