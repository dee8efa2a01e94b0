// A sandbox that loses every write's answer after applying it
// (SOCIALGATE_SANDBOX_LOST_ANSWER_RATE=1), playing aiograpi 1.12 (whose story_likers and
// hashtag_following read back story likes and hashtag follows). A keyed upload, comment, follow,
// like, message, and each state write (saves, pins, mutes, close friends, story likes, hashtag
// follows, a removed follower, a deleted post, story or highlight, privacy, biography, an answered
// follow request, a muted conversation or its calls) answer the confirmed result read back from the platform, the
// platform holds the write once, and the keyed repeat replays it without a call; a route with no
// read-back (manifest `reconcile: none`) answers 502 WriteOutcomeUnknown naming what to check, and
// its keyed repeat never sends it again.
import t, { type Test } from 'tap';
import { randomUUID } from 'node:crypto';
import { keyedWrite } from '../../../engine/service-errors.js';
import { createSandbox, sandboxOptionsFromEnv } from '../../../adapters/upstream/sandbox/index.js';
import { writesTo } from '../../../adapters/upstream/sandbox/lost-answers.js';
import { exampleFetch } from '../../helpers/examples.js';
import { countedProduct } from '../../helpers/counted-upstream.js';
import { settled } from '../../helpers/writes.js';

const sandbox = createSandbox({ seed: 1, ...sandboxOptionsFromEnv({ SANDBOX_LOST_ANSWER_RATE: '1', SANDBOX_LIVE_SECONDS: '0', SANDBOX_VERSION: '1.12.13' }) });
const { app, http, counted, session } = await countedProduct(t, sandbox);
const me = sandbox.world.users.get('5000000001')!;

/** The route's documented example with some fields changed, sent with a key. */
async function send(key: string, overrides: Record<string, string[]> = {}, routeKey = 'POST /media/comment') {
  const route = app.manifest.routes.find((r) => r.key === routeKey)!;
  const { url, init } = exampleFetch(route, http.url, session, overrides);
  const response = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), 'idempotency-key': key } });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as unknown, text, replayed: response.headers.get('idempotent-replayed') };
}

/** Sent twice with one key: the first answers the read-back's confirmation, the second replays it with no call. */
async function twice(t: Test, routeKey: string, overrides: Record<string, string[]>, write: string) {
  const key = randomUUID();
  const writes = () => counted.calls.filter((m) => m === write).length;
  const before = writes();
  const first = await send(key, overrides, routeKey);
  t.equal(first.status, 200, `${routeKey}: the lost answer is confirmed: ${first.text.slice(0, 300)}`);
  const calls = counted.calls.length;
  const second = await send(key, overrides, routeKey);
  t.equal(second.text, first.text, 'the repeat answers the same');
  t.equal(second.replayed, 'true');
  t.equal(counted.calls.length, calls, 'the repeat made no call');
  t.equal(writes() - before, 1, `${write} was sent once`);
  return first.body as Record<string, unknown>;
}

t.test('a comment whose answer was lost: the comment read back, posted once', async (t) => {
  const text = `lost answer ${randomUUID()}`;
  const media = '3955340313237098052_5000000001';
  const comment = await twice(t, 'POST /media/comment', { media_id: [media], text: [text] }, 'media_comment');
  t.equal(comment.text, text);
  const post = sandbox.world.media.get(media.split('_')[0])!;
  t.equal(post.comments.filter((pk) => sandbox.world.comments.get(pk)?.text === text).length, 1, 'one comment with the text');
});

t.test('an upload whose answer was lost: the new post read back, published once', async (t) => {
  const caption = `lost upload ${randomUUID()}`;
  const before = me.media.length;
  const post = await twice(t, 'POST /photo/upload', { caption: [caption] }, 'photo_upload');
  t.equal(post.caption_text, caption);
  t.equal(me.media.length, before + 1, 'one post more');
});

t.test('a follow and a like whose answers were lost: the relationship read back, sent once', async (t) => {
  const target = [...sandbox.world.users.values()].find((u) => !u.isPrivate && u.pk !== me.pk && !me.following.has(u.pk))!;
  t.equal(await twice(t, 'POST /user/follow', { user_id: [target.pk] }, 'user_follow'), true);
  t.ok(me.following.has(target.pk), 'demo follows the user');
  const media = [...sandbox.world.media.values()].find((m) => m.owner !== me.pk && !m.likers.has(me.pk))!;
  t.equal(await twice(t, 'POST /media/like', { media_id: [`${media.pk}_${media.owner}`] }, 'media_like'), true);
  t.ok(media.likers.has(me.pk), 'demo likes the post');
});

t.test('a message whose answer was lost: the message read back, sent once', async (t) => {
  const text = `lost message ${randomUUID()}`;
  const message = await twice(t, 'POST /direct/message', { text: [text] }, 'direct_send');
  t.equal(message.text, text);
  const sent = [...sandbox.world.messages.values()].filter((m) => m.text === text);
  t.equal(sent.length, 1, 'one message with the text');
});

/** A state write of the table: its route, its input, its upstream method and whether the sandbox holds its state. */
interface StateRow {
  readonly route: string;
  readonly input: Record<string, string[]>;
  readonly write: string;
  readonly holds: () => boolean;
}

function stateRows(): StateRow[] {
  const others = [...sandbox.world.users.values()].filter((u) => u.pk !== me.pk);
  const user = others.find((u) => !me.mutedPosts.has(u.pk) && !me.mutedStories.has(u.pk) && !me.closeFriends.has(u.pk))!;
  const follower = others.find((u) => me.followers.has(u.pk))!;
  const post = [...sandbox.world.media.values()].find((m) => m.owner !== me.pk && !me.saved.includes(m.pk))!;
  const mine = [...sandbox.world.media.values()].filter((m) => m.owner === me.pk && !me.pinned.includes(m.pk) && m.pk !== '3955340313237098052');
  const [own, doomed] = mine;
  const story = me.stories[0];
  const [approved, declined] = [...me.requests];
  const bio = `lost answer ${randomUUID().slice(0, 8)}`;
  const privately = !me.isPrivate;
  const conversation = [...sandbox.world.threads.values()].find((c) => c.state.has(me.pk) && !c.state.get(me.pk)!.muted && !c.state.get(me.pk)!.vcMuted)!;
  const side = () => conversation.state.get(me.pk)!;
  const highlight = me.highlights[0];
  const liked = [...sandbox.world.stories.values()].find((s) => s.owner !== me.pk && !s.likers.has(me.pk))!;
  const tag = [...sandbox.world.hashtags.keys()].find((name) => !me.hashtags.has(name))!;
  const pair = (route: string, input: Record<string, string[]>, write: string, unwrite: string, holds: () => boolean): StateRow[] => [
    { route: `POST ${route}`, input, write, holds },
    { route: `DELETE ${route}`, input, write: unwrite, holds: () => !holds() },
  ];
  return [
    ...pair('/media/save', { media_id: [`${post.pk}_${post.owner}`] }, 'media_save', 'media_unsave', () => me.saved.includes(post.pk)),
    ...pair('/media/pin', { media_pk: [own.pk] }, 'media_pin', 'media_unpin', () => me.pinned.includes(own.pk)),
    ...pair('/story/like', { story_id: [`${liked.pk}_${liked.owner}`] }, 'story_like', 'story_unlike', () => liked.likers.has(me.pk)),
    ...pair('/hashtag/follow', { hashtag: [tag] }, 'hashtag_follow', 'hashtag_unfollow', () => me.hashtags.has(tag)),
    ...pair('/user/mute/posts', { user_id: [user.pk] }, 'mute_posts_from_follow', 'unmute_posts_from_follow', () => me.mutedPosts.has(user.pk)),
    ...pair('/user/mute/stories', { user_id: [user.pk] }, 'mute_stories_from_follow', 'unmute_stories_from_follow', () => me.mutedStories.has(user.pk)),
    ...pair('/user/close-friend', { user_id: [user.pk] }, 'close_friend_add', 'close_friend_remove', () => me.closeFriends.has(user.pk)),
    { route: 'DELETE /user/follower', input: { user_id: [follower.pk] }, write: 'user_remove_follower', holds: () => !me.followers.has(follower.pk) },
    ...pair('/direct/thread/mute', { thread_id: [conversation.id] }, 'direct_thread_mute', 'direct_thread_unmute', () => side().muted),
    ...pair(
      '/direct/thread/video/call/mute',
      { thread_id: [conversation.id] },
      'direct_thread_mute_video_call',
      'direct_thread_unmute_video_call',
      () => side().vcMuted,
    ),
    { route: 'DELETE /highlight', input: { highlight_pk: [highlight] }, write: 'highlight_delete', holds: () => !sandbox.world.highlights.has(highlight) },
    { route: 'DELETE /media', input: { media_id: [`${doomed.pk}_${me.pk}`] }, write: 'media_delete', holds: () => !sandbox.world.media.has(doomed.pk) },
    { route: 'DELETE /story', input: { story_pk: [story] }, write: 'story_delete', holds: () => !sandbox.world.stories.has(story) },
    { route: 'PATCH /account/biography', input: { biography: [bio] }, write: 'account_set_biography', holds: () => me.biography === bio },
    {
      route: 'PATCH /account/privacy',
      input: { is_private: [String(privately)] },
      write: privately ? 'account_set_private' : 'account_set_public',
      holds: () => me.isPrivate === privately,
    },
    {
      route: 'POST /account/follow/request/approve',
      input: { user_id: [approved] },
      write: 'user_follow_request_approve',
      holds: () => me.followers.has(approved),
    },
    { route: 'DELETE /account/follow/request', input: { user_id: [declined] }, write: 'user_follow_request_decline', holds: () => !me.requests.has(declined) },
  ];
}

t.test('state writes whose answers were lost: the state read back, each sent once', async (t) => {
  const rows = stateRows();
  for (const row of rows) {
    t.notOk(row.holds(), `${row.route}: not yet so`);
    t.equal(await twice(t, row.route, row.input, row.write), true, `${row.route}: confirmed`);
    t.ok(row.holds(), `${row.route}: the platform holds it`);
  }
  t.equal(rows.length, 26);
});

t.test("a scheduled message whose answer was lost: its run carries the write's own key, so it is read back, sent once", async (t) => {
  const text = `scheduled lost ${randomUUID()}`;
  const as = { 'x-session-id': session };
  const form = { text, user_ids: '5000000100', publish_at: new Date(Date.now() + 400).toISOString() };
  const reply = await http.request('POST', '/direct/message', { form, headers: as });
  t.equal(reply.status, 202, reply.text);
  const id = (reply.body as { id: string }).id;
  const done = await settled(http, as, id);
  t.match(done, { state: 'completed', result: { text } }, 'the run answered the message read back, not the lost connection');
  t.equal([...sandbox.world.messages.values()].filter((m) => m.text === text).length, 1, 'one message with the text');
});

t.test('no read-back (reconcile: none): 502 WriteOutcomeUnknown naming what to check; the keyed repeat never re-sends', async (t) => {
  const route = app.manifest.routes.find((r) => r.key === 'POST /media/comment/pin')!;
  t.equal(route.reconcile, 'none', 'the manifest marks it');
  const key = randomUUID();
  const pins = () => counted.calls.filter((m) => m === 'comment_pin').length;
  const before = pins();
  const first = await send(key, {}, 'POST /media/comment/pin');
  t.equal(first.status, 502, first.text);
  t.match(first.body, { exc_type: 'WriteOutcomeUnknown', detail: /check the account on the platform/ });
  const second = await send(key, {}, 'POST /media/comment/pin');
  t.match(second.body, { exc_type: 'WriteOutcomeUnknown' }, 'still unknown');
  t.equal(pins() - before, 1, 'comment_pin was sent once');
});

t.test('without a key the lost answer is the platform error, as before (and the write happened)', async (t) => {
  const text = `unkeyed ${randomUUID()}`;
  const reply = await http.request('POST', '/media/comment', {
    form: { media_id: '3955340313237098052_5000000001', text },
    headers: { 'x-session-id': session },
  });
  t.equal(reply.status, 502);
  t.match(reply.body, { exc_type: 'ClientConnectionError' });
  t.ok(
    [...sandbox.world.comments.values()].some((c) => c.text === text),
    'the platform took it',
  );
});

t.test("the sandbox loses the answers of writes only: every keyed route's methods, no read's", async (t) => {
  const reads = new Set(app.manifest.routes.filter((r) => r.method === 'GET').flatMap((r) => r.upstreamMethods));
  const writes = new Set(
    app.manifest.routes
      .filter(keyedWrite)
      .flatMap((r) => r.upstreamMethods)
      .filter((m) => !reads.has(m)),
  );
  t.same(
    [...writes].filter((m) => !writesTo(m)),
    [],
    'every write method is a write',
  );
  t.same([...reads].filter(writesTo), [], 'no read method is');
});
