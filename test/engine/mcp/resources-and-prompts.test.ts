// The MCP endpoint beyond tools, through the official client: resources (list, templates, read,
// subscribe: a session's state change notified on a 2026-07-28 listen stream), prompts, logging,
// completion, progress; the guardrails: annotations and action classes on tools, confirmation by
// elicitation (accepted, declined, unsupported) and the audit log read back through its route.
import t from 'tap';
import type { Client } from '@modelcontextprotocol/client';
import { FIXED, type SandboxAdapter } from '../../../adapters/upstream/sandbox/index.js';
import { product } from '../../helpers/full-app.js';
import { errorOf, mcpOverHttp, modernOverHttp } from '../../helpers/mcp.js';
import type { R } from '../../helpers/session-http.js';

const KEY = 'k3y-for-mcp-feature-tests-0123456789';
const p = await product({ apiKey: KEY, mcpTools: 'all' });
t.teardown(() => p.client.close());
const keyed = { 'x-api-key': KEY };
const loginAs = async (username: string) =>
  (await p.client.request('POST', '/auth/login', { form: { username, password: 'demo-password' }, headers: keyed })).body as string;
const demo = await loginAs('demo');
const headers = { ...keyed, 'x-session-id': demo };
const clients: Client[] = [];
t.teardown(() => Promise.all(clients.map((client) => client.close())));
const open = async (made: Promise<Client>): Promise<Client> => {
  const client = await made;
  clients.push(client);
  return client;
};
const legacy = await open(mcpOverHttp(p.client.url, headers));
const friendship = async (pk: string) => (await p.client.request('GET', '/user/friendship', { query: { user_id: pk }, headers })).body as R;
// Public accounts demo does not follow: the subjects of the follow tests (their assertions read HTTP).
const world = (p.app.services.upstream as SandboxAdapter).world;
const strangers = [...world.users.values()].filter(
  (user) => !user.isPrivate && !world.users.get(FIXED.demo)!.following.has(user.pk) && !Object.values(FIXED).includes(user.pk as never),
);

/** The text of a resource's first content. */
const text = (read: { contents: readonly ({ text: string } | { blob: string })[] }): string => {
  const first = read.contents[0];
  return 'text' in first ? first.text : '';
};

/**
 * The tool list, from a client used for nothing else: after listing, a client compiles every
 * tool's output schema on its next call (seconds for all of them), which the clients that call
 * tools here need not pay.
 */
async function listedTools() {
  const client = await mcpOverHttp(p.client.url, headers);
  try {
    return (await client.listTools()).tools;
  } finally {
    await client.close();
  }
}
const tools = await listedTools();

t.test('tools carry their action class and annotations from it', async (t) => {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  t.equal(tools.length, p.app.manifest.routes.filter((route) => byName.has(route.id)).length);
  for (const tool of tools) {
    const route = p.app.manifest.routes.find((one) => one.id === tool.name)!;
    t.equal(tool._meta?.['socialgate/action'], route.action, `${tool.name} names its class`);
    t.equal(tool.annotations?.readOnlyHint, route.action === 'read', `${tool.name} read-only exactly when it reads`);
  }
  t.match(byName.get('postMediaLike')!._meta, { 'socialgate/action': 'like' });
  t.match(byName.get('postMediaCommentCheckOffensive')!.annotations, { readOnlyHint: true, idempotentHint: true }, 'a POST that only checks is a read');
  t.match(byName.get('deleteMedia')!.annotations, { readOnlyHint: false, destructiveHint: true });
});

t.test("resources: the session's own, a user by template, and nothing of another session", async (t) => {
  const { resources } = await legacy.listResources();
  const uris = resources.map((one) => one.uri);
  t.match(uris, [/\/state$/, /\/account$/, /\/events$/, /\/jobs$/, /\/watch$/, /\/policy$/, /\/scheduled_writes$/, 'socialgate://pools']);
  const state = JSON.parse(text(await legacy.readResource({ uri: uris[0] })));
  t.match(state, { state: 'active', account: { username: 'demo' }, throttled_until: null });
  t.notOk(JSON.stringify(state).includes(demo), 'the session ID is never in a resource');
  const account = JSON.parse(text(await legacy.readResource({ uri: uris[1] })));
  t.equal(account.username, 'demo', 'the account, through GET /account');
  const { resourceTemplates } = await legacy.listResourceTemplates();
  t.ok(resourceTemplates.some((one) => one.uriTemplate === 'socialgate://users/{username}'));
  const user = JSON.parse(text(await legacy.readResource({ uri: 'socialgate://users/demo' })));
  t.equal(user.pk, FIXED.demo);
  await t.rejects(legacy.readResource({ uri: 'socialgate://sessions/someone-else/state' }), /No resource/, "another session's resource is not found");
  await t.rejects(legacy.readResource({ uri: 'socialgate://users/no_such_user_here' }), /UserNotFound/);
});

t.test("subscriptions: a 2026-07-28 listener hears its session's state change; 2025 subscribe is accepted", async (t) => {
  const session = await loginAs('demo_throttled');
  const modern = await open(modernOverHttp(p.client.url, { ...keyed, 'x-session-id': session }));
  const stateUri = (await modern.listResources()).resources.find((one) => one.uri.endsWith('/state'))!.uri;
  const updated: string[] = [];
  modern.setNotificationHandler('notifications/resources/updated', (note) => void updated.push(note.params.uri));
  const listening = await modern.listen({ resourceSubscriptions: [stateUri] });
  t.teardown(() => listening.close());
  t.match(errorOf(await modern.callTool({ name: 'getAccount', arguments: {} })), { status: 429 }, 'the platform throttles the account');
  for (let i = 0; i < 50 && !updated.length; i++) await new Promise((resolve) => setTimeout(resolve, 20));
  t.same(updated, [stateUri], 'the state resource was notified');
  t.match(JSON.parse(text(await modern.readResource({ uri: stateUri }))), { state: 'throttled', throttled_until: String });
  const old = await open(mcpOverHttp(p.client.url, { ...keyed, 'x-session-id': session }));
  t.same(await old.subscribeResource({ uri: stateUri }), {}, 'resources/subscribe of an own resource');
  await t.rejects(old.subscribeResource({ uri: 'socialgate://sessions/nobody/state' }), /No resource/);
});

t.test('prompts: workflow templates that name real tools', async (t) => {
  const { prompts } = await legacy.listPrompts();
  t.same(
    prompts.map((one) => one.name),
    ['answer_unread_messages', 'summarise_followers', 'account_health', 'explore_hashtag', 'posts_at_place'],
  );
  const names = new Set(tools.map((tool) => tool.name));
  for (const prompt of prompts) {
    const args = Object.fromEntries((prompt.arguments ?? []).map((arg) => [arg.name, 'x']));
    const text = (await legacy.getPrompt({ name: prompt.name, arguments: args })).messages
      .map((m) => (m.content.type === 'text' ? m.content.text : ''))
      .join('\n');
    for (const named of text.match(/\b(get|post|patch|delete)[A-Z]\w+/g) ?? []) t.ok(names.has(named), `${prompt.name} names tool ${named}, which exists`);
  }
  const followers = await legacy.getPrompt({ name: 'summarise_followers', arguments: { username: 'demo' } });
  t.match(followers.messages[0].content, { type: 'text', text: /@demo[\s\S]*postJobs[\s\S]*getJobsResults/ });
  await t.rejects(legacy.getPrompt({ name: 'summarise_followers', arguments: {} }), /needs username/);
});

t.test('completion: manifest enums, and usernames, hashtags and places from the platform', async (t) => {
  const complete = async (ref: Parameters<Client['complete']>[0]['ref'], name: string, value: string) =>
    (await legacy.complete({ ref, argument: { name, value } })).completion.values;
  t.same(await complete({ type: 'ref/prompt', name: 'summarise_followers' }, 'format', 'c'), ['csv'], 'the enum of GET /jobs/results format');
  const users = await complete({ type: 'ref/prompt', name: 'summarise_followers' }, 'username', 'mil');
  t.ok(users.length > 0 && users.some((name) => name.startsWith('mil')), `usernames from the search (${users.slice(0, 3).join(', ')})`);
  t.same(await complete({ type: 'ref/resource', uri: 'socialgate://users/{username}' }, 'username', 'mil'), users, 'the user template completes the same way');
  t.ok((await complete({ type: 'ref/prompt', name: 'explore_hashtag' }, 'hashtag', 'tra')).length > 0, 'hashtags');
  t.ok((await complete({ type: 'ref/prompt', name: 'posts_at_place' }, 'place', 'par')).length > 0, 'places');
  t.same(await complete({ type: 'ref/prompt', name: 'account_health' }, 'nothing', 'a'), [], 'no source, no values');
});

t.test('logging: nothing until the client sets a level, then a message per tool call; progress when asked', async (t) => {
  const client = await open(mcpOverHttp(p.client.url, headers));
  const messages: R[] = [];
  client.setNotificationHandler('notifications/message', (note) => void messages.push(note.params as R));
  await client.callTool({ name: 'getUser', arguments: { username: 'demo' } });
  t.same(messages, [], 'no level chosen: no messages');
  await client.setLoggingLevel('warning');
  await client.callTool({ name: 'getUser', arguments: { username: 'demo' } });
  t.same(messages, [], 'a success logs at info, below warning');
  await client.callTool({ name: 'getUser', arguments: { username: 'no_such_user_here' } });
  t.match(messages, [{ level: 'warning', logger: 'socialgate', data: { tool: 'getUser', outcome: 'UserNotFound', status: 404, action: 'read' } }]);
  const progress: R[] = [];
  await client.callTool({ name: 'getUser', arguments: { username: 'demo' } }, { onprogress: (step) => void progress.push(step) });
  t.match(
    progress,
    [
      { progress: 0, total: 1 },
      { progress: 1, total: 1 },
    ],
    'progress from start to end',
  );
});

t.test('confirmation: asked and accepted, declined, and refused where the client cannot ask', async (t) => {
  const [first, second, third] = strangers.slice(10, 13);
  const asked: string[] = [];
  const answering = async (action: 'accept' | 'decline') => {
    const client = await open(modernOverHttp(p.client.url, headers, { elicitation: { form: {} } }));
    client.setRequestHandler('elicitation/create', async (request) => {
      asked.push((request.params as { message: string }).message);
      return action === 'accept' ? { action, content: { confirm: true } } : { action };
    });
    return client;
  };
  const yes = await answering('accept');
  const done = await yes.callTool({ name: 'postUserFollow', arguments: { user_id: first.pk } });
  t.notOk(done.isError, 'accepted: the follow is sent');
  t.match(asked[0], /follow a user \(postUserFollow, a follow write\)/, 'the human was asked what the agent wants');
  t.equal((await friendship(first.pk)).following, true);

  const no = await answering('decline');
  t.match(errorOf(await no.callTool({ name: 'postUserFollow', arguments: { user_id: second.pk } })), { status: 403, exc_type: 'ConfirmationDeclined' });
  t.equal((await friendship(second.pk)).following, false, 'declined: nothing reached the platform');

  const mute = await open(modernOverHttp(p.client.url, headers));
  const refused = errorOf(await mute.callTool({ name: 'postUserFollow', arguments: { user_id: third.pk } }));
  t.match(
    refused,
    { status: 403, exc_type: 'ConfirmationRequired', hint: /SOCIALGATE_MCP_CONFIRM/ },
    'a client without elicitation is refused, naming the setting',
  );
  t.match(errorOf(await legacy.callTool({ name: 'deleteUserFollow', arguments: { user_id: first.pk } })), {
    exc_type: 'ConfirmationRequired',
    hint: /"follow" and "delete" out of SOCIALGATE_MCP_CONFIRM/,
  });
  t.equal((await friendship(third.pk)).following, false);
  t.notOk(
    (await legacy.callTool({ name: 'postMediaLike', arguments: { media_id: 'x' } })).content.some((c) => c.type === 'text' && /Confirmation/.test(c.text)),
    'a like is not in the default set',
  );
});

t.test('the audit log: every tool call, by key, session ref and tool, secrets removed', async (t) => {
  await legacy.callTool({ name: 'patchAccountPassword', arguments: { old_password: 'not-the-password-SECRET1', new_password: 'new-password-SECRET2' } });
  const reply = await p.client.request('GET', '/console/audit', { query: { limit: 200 }, headers: keyed });
  t.equal(reply.status, 200);
  const entries = (reply.body as { entries: R[] }).entries;
  t.notOk(JSON.stringify(entries).includes('SECRET'), 'no password reaches the audit');
  t.notOk(JSON.stringify(entries).includes(demo), 'nor the session ID');
  t.match(entries[0], {
    key: 'default',
    tool: 'patchAccountPassword',
    route: 'PATCH /account/password',
    action: 'profile',
    arguments: { old_password: '[redacted]', new_password: '[redacted]' },
    confirmation: 'not_needed',
  });
  const elicited = entries.find((entry) => entry.tool === 'postUserFollow' && entry.outcome === 'ok');
  t.match(elicited, { action: 'follow', confirmation: 'elicited', status: 200, session: /^[\w-]{6,}$/ });
  t.ok(
    entries.some((entry) => entry.outcome === 'ConfirmationDeclined'),
    'a declined call is audited',
  );
  t.ok(entries.some((entry) => entry.outcome === 'ConfirmationRequired' && entry.tool === 'deleteUserFollow'));
  const mine = (await p.client.request('GET', '/console/audit', { query: { ref: elicited!.session, tool: 'getUser' }, headers: keyed })).body as {
    entries: R[];
  };
  t.ok(
    mine.entries.length > 0 && mine.entries.every((entry) => entry.tool === 'getUser' && entry.session === elicited!.session),
    'filtered by session ref and tool',
  );
  t.equal((await p.client.request('GET', '/console/audit')).status, 401, 'operators only: behind the API key');
});
