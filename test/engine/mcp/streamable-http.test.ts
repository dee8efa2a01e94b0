// The MCP endpoint over Streamable HTTP with the official client SDK: initialise, list (core, all,
// dynamic), call a read and a mutation on the sandbox through the same pipeline as HTTP (the
// answers are the HTTP answers), mapped errors (unknown user, throttled account, missing session),
// a validation error naming the parameter, and downloads answered with a link.
import t from 'tap';
import { FIXED } from '../../../adapters/upstream/sandbox/index.js';
import { demoOverHttp, product } from '../../helpers/full-app.js';
import { answerOf, errorOf, mcpOverHttp } from '../../helpers/mcp.js';

// Writes run unconfirmed here (the confirmation setting empty); test/engine/mcp/refusals.test.ts asks for them.
const { p, headers, call, world, demo } = await demoOverHttp(t, { mcpConfirm: [] });
const mcp = await mcpOverHttp(p.client.url, headers);
t.teardown(() => mcp.close());

t.test('initialises and lists the core set the manifest marks, with annotations from the method', async (t) => {
  t.equal(mcp.getServerVersion()?.name, 'socialgate');
  const { tools } = await mcp.listTools();
  const core = p.app.manifest.routes.filter((route) => route.core);
  t.same(tools.map((tool) => tool.name).sort(), core.map((route) => route.id).sort(), 'exactly the routes marked core');
  t.ok(tools.length >= 25 && tools.length <= 40, `about thirty tools (${tools.length})`);
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  t.match(byName.get('getUser')!.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true });
  t.match(byName.get('postUserFollow')!.annotations, { readOnlyHint: false, destructiveHint: false, idempotentHint: false });
  t.match(byName.get('deleteUserFollow')!.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: true });
  t.equal(byName.get('getUser')!.title, 'Profile of one user');
  t.match(byName.get('getUser')!.description, /^Profile of one user\. Full profile of a user/);
});

t.test('a read answers what the same HTTP request answers', async (t) => {
  const tool = answerOf(await mcp.callTool({ name: 'getUser', arguments: { username: 'demo' } }));
  t.equal(tool.pk, FIXED.demo);
  t.same(tool, await call('GET', '/user', { username: 'demo' }), 'same body as GET /user');
  const page = answerOf(await mcp.callTool({ name: 'getUserFollowers', arguments: { user_id: FIXED.demo, amount: 5 } }));
  t.same(page, await call('GET', '/user/followers', { user_id: FIXED.demo, amount: 5 }), 'a page, with its cursor');
  t.equal(page.items.length, 5, 'typed arguments reach the coercers (amount as a number)');
  const byName = answerOf(await mcp.callTool({ name: 'getUserPosts', arguments: { username: '@demo', amount: '3' } }));
  t.equal(byName.items.length, 3, 'a number sent as a string is coerced');
  t.same(byName, await call('GET', '/user/posts', { user_id: FIXED.demo, amount: 3 }), 'a username is resolved to the pk, as over HTTP');
});

t.test("a mutation changes the sandbox, and the answer is the route's", async (t) => {
  const target = [...world.users.values()].find(
    (user) => user.pk !== demo.pk && !demo.following.has(user.pk) && !user.isPrivate && !Object.values(FIXED).includes(user.pk as never),
  )!;
  const before = await call('GET', '/user/friendship', { user_id: target.pk });
  t.equal(before.following, false);
  const followed = answerOf(await mcp.callTool({ name: 'postUserFollow', arguments: { user_id: target.pk } }));
  t.same(followed, { result: true }, 'a boolean answer is carried as result');
  t.equal((await call('GET', '/user/friendship', { user_id: target.pk })).following, true, 'HTTP sees the follow');
  answerOf(await mcp.callTool({ name: 'deleteUserFollow', arguments: { user_id: target.pk } }));
  t.equal((await call('GET', '/user/friendship', { user_id: target.pk })).following, false);
});

t.test('errors are tool errors carrying the HTTP body', async (t) => {
  const http = await p.client.request('GET', '/user', { query: { username: 'no_such_user_here' }, headers });
  const tool = errorOf(await mcp.callTool({ name: 'getUser', arguments: { username: 'no_such_user_here' } }));
  t.match(tool, { status: 404, exc_type: 'UserNotFound' });
  t.same(
    { detail: tool.detail, exc_type: tool.exc_type, hint: tool.hint },
    { detail: (http.body as Record<string, unknown>).detail, exc_type: 'UserNotFound', hint: (http.body as Record<string, unknown>).hint },
  );
  t.match(tool.request_id, /\S{8,}/, 'a request id to find the log line');

  const invalid = errorOf(await mcp.callTool({ name: 'getUserFollowers', arguments: { user_id: FIXED.demo, amount: 1000, colour: 'red' } }));
  t.match(invalid, { status: 422, exc_type: 'ValidationError' });
  t.same(invalid.errors.map((e: { param: string }) => e.param).sort(), ['amount', 'colour'], 'each bad parameter named');
  t.match(invalid.detail, /amount/);
  const missing = errorOf(await mcp.callTool({ name: 'getUserFollowers', arguments: {} }));
  t.match(missing.errors, [{ param: 'user_id', problem: 'required' }]);

  const anonymous = await mcpOverHttp(p.client.url);
  t.teardown(() => anonymous.close());
  t.match(errorOf(await anonymous.callTool({ name: 'getAccount', arguments: {} })), { status: 401, exc_type: 'SessionRequired' });
  const stranger = await mcpOverHttp(p.client.url, { 'x-session-id': 'not-a-session-id-of-this-service' });
  t.teardown(() => stranger.close());
  t.match(errorOf(await stranger.callTool({ name: 'getAccount', arguments: {} })), { status: 401, exc_type: 'SessionNotFound' });
  t.match(errorOf(await mcp.callTool({ name: 'noSuchTool', arguments: {} })), { status: 404, exc_type: 'UnknownTool' });
});

t.test("a throttled account: the platform's 429, then the governor keeps later calls off the upstream", async (t) => {
  const throttled = await mcpOverHttp(p.client.url, { 'x-session-id': await p.login('demo_throttled') });
  t.teardown(() => throttled.close());
  const first = errorOf(await throttled.callTool({ name: 'getAccount', arguments: {} }));
  t.match(first, { status: 429, exc_type: 'PleaseWaitFewMinutes' });
  t.type(first.retry_after, 'number', 'the wait, as Retry-After would say');
  const second = errorOf(await throttled.callTool({ name: 'getUser', arguments: { user_id: FIXED.demo } }));
  t.equal(second.status, 429, 'the governor answers for the platform');
});

t.test('downloads answer a link to the file, never its bytes', async (t) => {
  const post = (await call('GET', '/user/posts', { user_id: FIXED.demo, amount: 20 })).items.find((m: { media_type: number }) => m.media_type === 1);
  const link = answerOf(await mcp.callTool({ name: 'getPhotoDownload', arguments: { media_pk: post.pk } }));
  t.match(link, { method: 'GET', url: new RegExp(`^${p.client.url}/photo/download\\?media_pk=${post.pk}$`) });
  const file = await fetch(link.url as string, { headers });
  t.equal(file.status, 200, 'the link works with the same session');
  t.match(file.headers.get('content-type'), /^image\//);
  t.match(errorOf(await mcp.callTool({ name: 'getPhotoDownload', arguments: {} })), { status: 422, errors: [{ param: 'media_pk' }] });
});

t.test('the tool set setting: all, dynamic, none', async (t) => {
  const all = await product({ mcpTools: 'all' });
  const dynamic = await product({ mcpTools: 'dynamic' });
  const none = await product({ mcpTools: 'none' });
  t.teardown(async () => Promise.all([all, dynamic, none].map((one) => one.client.close())));

  const everything = await mcpOverHttp(all.client.url, { 'x-session-id': await all.login() });
  t.teardown(() => everything.close());
  const listed = (await everything.listTools()).tools;
  t.ok(listed.length > 200, `all: every route a tool (${listed.length})`);
  t.ok(
    listed.some((tool) => tool.name === 'getDirectSpam'),
    'beyond the core',
  );

  const meta = await mcpOverHttp(dynamic.client.url, { 'x-session-id': await dynamic.login() });
  t.teardown(() => meta.close());
  t.same(
    (await meta.listTools()).tools.map((tool) => tool.name),
    ['find_routes', 'describe_route', 'call_route'],
  );
  const found = answerOf(await meta.callTool({ name: 'find_routes', arguments: { words: 'followers of a user' } }));
  t.ok(
    found.routes.slice(0, 3).some((route: { name: string }) => route.name === 'getUserFollowers'),
    'find_routes finds by words',
  );
  const described = answerOf(await meta.callTool({ name: 'describe_route', arguments: { name: 'getDirectSpam' } }));
  t.equal(described.tool.name, 'getDirectSpam', 'describe_route reaches routes outside the core');
  t.ok(described.tool.inputSchema.properties, 'with its input schema');
  const called = answerOf(await meta.callTool({ name: 'call_route', arguments: { name: 'getUser', arguments: { username: 'demo' } } }));
  t.equal(called.pk, FIXED.demo, 'call_route runs it');
  t.match(errorOf(await meta.callTool({ name: 'call_route', arguments: { name: 'getUser', arguments: { username: '' } } })), { status: 422 });
  t.match(errorOf(await meta.callTool({ name: 'describe_route', arguments: { name: 'nothing' } })), { exc_type: 'UnknownTool' });
  t.match(errorOf(await meta.callTool({ name: 'call_route', arguments: { name: 'getUser', arguments: 'username=demo' } })), {
    status: 422,
    errors: [{ param: 'arguments' }],
  });

  t.equal((await none.client.request('POST', '/mcp', { headers: { 'content-type': 'application/json' }, body: '{}' })).status, 404, 'none: no /mcp');
});

t.test('a whole list goes through the jobs tools: started, followed, and read as a link', async (t) => {
  const { tools } = await mcp.listTools();
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  for (const name of ['postJobs', 'getJobsStatus', 'getJobsResults']) t.ok(byName.has(name), `${name} is in the core set`);
  t.match(byName.get('getUserFollowers')!.description, /start a job instead \(postJobs/, 'a paged tool points to the jobs tools');
  const job = answerOf(await mcp.callTool({ name: 'postJobs', arguments: { route: 'GET /user/followers', params: { user_id: FIXED.demo }, limit: 20 } }));
  t.match(job, { id: /\S{8,}/, route: 'GET /user/followers' }, 'the job, as POST /jobs answers it');
  const status = answerOf(await mcp.callTool({ name: 'getJobsStatus', arguments: { id: job.id } }));
  t.equal(status.id, job.id);
  const results = answerOf(await mcp.callTool({ name: 'getJobsResults', arguments: { id: job.id, format: 'csv' } }));
  t.match(results, { url: /\/jobs\/results\?/, method: 'GET' }, "results are a link, never the rows in the agent's context");
  t.match(results.url, `id=${job.id}`);
});
