// The routes for what aiograpi added up to 1.12 (manifest `since`). On the sandbox's
// default 1.0.9 each is refused by name before any call; playing 1.12.13 (SOCIALGATE_SANDBOX_VERSION)
// they do what they say in the sandbox's world. Their documented examples run in the route matrix.
import t, { type Test } from 'tap';
import { productParts } from '../../../../bin/compose.js';
import { createApp } from '../../../../engine/app.js';
import { testConfig } from '../../../../engine/config.js';
import { createLogger } from '../../../../engine/log.js';
import { createStore } from '../../../../adapters/store/keyv.js';
import { createSandbox, sandboxOptionsFromEnv, type SandboxOptions } from '../../../../adapters/upstream/sandbox/index.js';
import { serve } from '../../../helpers/http.js';
import { exampleFetch } from '../../../helpers/examples.js';

async function service(t: Test, options: SandboxOptions) {
  const config = testConfig();
  const sandbox = createSandbox({ seed: config.seed, ...options });
  const app = createApp({ config, upstream: sandbox, store: await createStore('memory://'), log: createLogger('silent'), ...productParts(config) });
  const http = await serve(app);
  t.teardown(() => http.close());
  const login = await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } });
  const session = String(login.body);
  const headers = { 'x-session-id': session };
  return { app, http, sandbox, session, headers };
}

t.test('SOCIALGATE_SANDBOX_VERSION chooses the version the sandbox plays', async (t) => {
  t.same(sandboxOptionsFromEnv({ SANDBOX_VERSION: '1.12.13' }).version, '1.12.13');
  t.equal(sandboxOptionsFromEnv({}).version, undefined, '1.0.9 stays the default');
  t.throws(() => sandboxOptionsFromEnv({ SANDBOX_VERSION: '2.0.6' }), /SOCIALGATE_SANDBOX_VERSION: the sandbox plays aiograpi 1\.0\.9 or 1\.12\.13/);
  t.equal(createSandbox({ liveSeconds: 0 }).library.version, '1.0.9');
  t.notOk(createSandbox({ liveSeconds: 0 }).methods.has('story_poll_vote'), '1.0.9 has no 1.12 method');
  t.ok(createSandbox({ liveSeconds: 0, version: '1.12.13' }).methods.has('story_poll_vote'));
});

t.test('on 1.0.9 every route for a newer library is refused by name, before any call', async (t) => {
  const { app, http, session } = await service(t, {});
  const newer = app.manifest.routes.filter((r) => r.since);
  t.ok(newer.length >= 11, `${newer.length} routes need a newer aiograpi`);
  for (const route of newer) {
    const { url, init } = exampleFetch(route, http.url, session);
    const reply = await fetch(url, init);
    const body = (await reply.json()) as { exc_type: string; detail: string; hint: string };
    t.equal(reply.status, 422, route.key);
    const detail = `${route.key} needs aiograpi ${route.since} or later; the running aiograpi is 1.0.9`;
    t.match(body, { exc_type: 'LibraryTooOld', detail, hint: /SOCIALGATE_SANDBOX_VERSION/ });
  }
  const anonymous = await http.request('GET', '/story/likers', { query: { story_pk: '1' } });
  t.match(anonymous, { status: 422, body: { exc_type: 'LibraryTooOld' } }, 'refused before the session is asked for');
});

t.test('a job over a paged route of a newer library: refused when started on 1.0.9, collected on 1.12.13', async (t) => {
  const old = await service(t, {});
  const form = { route: 'GET /story/likers', params: JSON.stringify({ story_pk: '3123047589296897607' }) };
  const refused = await old.http.request('POST', '/jobs', { form, headers: old.headers });
  t.match(refused, { status: 422, body: { exc_type: 'LibraryTooOld' } }, 'the job is refused at the start, not failed later');
  const current = await service(t, { version: '1.12.13' });
  const started = await current.http.request('POST', '/jobs', { form, headers: current.headers });
  t.equal(started.status, 202, JSON.stringify(started.body));
});

t.test('on 1.12.13 they act on the world', async (t) => {
  const { http, sandbox, headers } = await service(t, { version: '1.12.13' });
  const world = sandbox.world;
  const me = world.users.get('5000000001')!;
  const story = world.stories.get(me.stories[0])!;

  const likers = await http.request('GET', '/story/likers', { query: { story_pk: story.pk, amount: 2 }, headers });
  t.equal(likers.status, 200);
  const page = likers.body as { items: { pk: string }[]; next_cursor: string };
  t.ok(page.items.length === 2 && page.items.every((u) => story.likers.has(u.pk)), "the story's likers, two to a page");
  const rest = await http.request('GET', '/story/likers', { query: { story_pk: story.pk, cursor: page.next_cursor }, headers });
  t.equal((rest.body as { items: unknown[] }).items.length, story.likers.size - 2, 'the cursor continues');

  const badVote = await http.request('POST', '/story/poll/vote', { form: { story_id: `${story.pk}_${me.pk}`, poll_id: '1789', vote: '-1' }, headers });
  t.match(badVote, { status: 422, body: { errors: [{ param: 'vote' }] } });
  const badReason = await http.request('POST', '/user/report', { form: { user_id: '75788698', reason: 'rude' }, headers });
  t.match(badReason, { status: 422, body: { errors: [{ param: 'reason' }] } });
  t.equal((await http.request('POST', '/story/poll/vote', { form: { story_id: `${story.pk}_${me.pk}`, poll_id: '1789', vote: '1' }, headers })).body, true);

  t.equal((await http.request('POST', '/hashtag/follow', { form: { hashtag: 'travel' }, headers })).status, 200);
  t.match(await http.request('GET', '/hashtag/following', { headers }), { status: 200, body: [{ name: 'travel' }] }, 'a followed hashtag is listed');

  const converted = await http.request('POST', '/account/convert', { form: { account_type: 'business', category_id: '180164648685982' }, headers });
  t.match(converted, { status: 200, body: { pk: me.pk, is_business: true } });
  t.equal(me.category, '180164648685982');

  const found = await http.request('GET', '/search/media', { query: { query: 'golden hour', amount: 5 }, headers });
  const hits = found.body as { caption_text: string }[];
  t.ok(hits.length > 0 && hits.length <= 5, `${hits.length} posts, at most the amount`);
  t.ok(
    hits.every((m) => /golden hour/i.test(m.caption_text)),
    "each one's text matches",
  );

  const theirs = world.users.get('75788698')!.media[0];
  const mine = me.media.find((pk) => world.media.get(pk)!.kind === 'clip')!;
  const linked = await http.request('POST', '/media/reel/link', { form: { media_id: theirs, target_media_id: mine }, headers });
  t.match(linked, { status: 403 }, "only one's own reels take a link");

  t.match(await http.request('GET', '/account/crosspost/threads', { headers }), { status: 200, body: { destination_id: `threads-${me.pk}` } });
  t.match(await http.request('GET', '/account/crosspost/facebook', { query: { destination_type: 'PAGE' }, headers }), {
    status: 200,
    body: { destination_type: 'PAGE' },
  });
});
