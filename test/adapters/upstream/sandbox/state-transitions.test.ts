// Every state transition of the behaviour document, and creations, visible to later reads.
import { rmSync } from 'node:fs';
import t from 'tap';
import { createSandbox } from '../../../../adapters/upstream/sandbox/index.js';
import { loginAs, sampleFiles } from '../../../helpers/sandbox.js';
import { errorWith } from '../../../helpers/assert.js';

const sandbox = createSandbox({ seed: 21 });
const w = sandbox.world;
const DEMO = '5000000001';
const demo = w.users.get(DEMO)!;
const files = sampleFiles();
t.teardown(() => rmSync(files.dir, { recursive: true, force: true }));
type R = Record<string, unknown>;
const client = await loginAs(sandbox);
// biome-ignore lint/suspicious/noExplicitAny: untyped JSON answers, read by the assertions
const call = (method: string, kwargs: R = {}) => client.call(method, kwargs) as Promise<any>;
const stranger = [...w.users.values()].find(
  (u) => !u.isPrivate && u.pk !== DEMO && !demo.following.has(u.pk) && !demo.followers.has(u.pk) && !demo.requests.has(u.pk),
)!;
const followerPks = async (pk: string) => ((await call('user_followers_v1_chunk', { user_id: pk, max_amount: 1000 }))[0] as R[]).map((u) => u.pk);

t.test('follow and unfollow; removing a follower', async (t) => {
  t.equal((await call('user_friendship_v1', { user_id: stranger.pk })).following, false);
  t.equal(await call('user_follow', { user_id: stranger.pk }), true);
  t.equal((await call('user_friendship_v1', { user_id: stranger.pk })).following, true);
  t.ok((await followerPks(stranger.pk)).includes(DEMO), 'demo is in their followers');
  t.equal(await call('user_unfollow', { user_id: stranger.pk }), true);
  t.equal((await call('user_friendship_v1', { user_id: stranger.pk })).following, false);
  const follower = [...demo.followers][0];
  t.equal(await call('user_remove_follower', { user_id: follower }), true);
  t.notOk((await followerPks(DEMO)).includes(follower), 'removed from followers');
  t.equal((await call('user_friendship_v1', { user_id: follower })).followed_by, false);
});

t.test('follow requests: approve and decline, one and many', async (t) => {
  const requests = async () => ((await call('user_follow_requests_chunk', { max_amount: 100 }))[0] as R[]).map((u) => u.pk as string);
  const [a, b, c, d, e, f] = await requests();
  t.equal(await call('user_follow_request_approve', { user_id: a }), true);
  t.equal(await call('user_follow_request_decline', { user_id: b }), true);
  t.same(await call('user_follow_requests_approve', { user_ids: [c, d] }), { [c]: true, [d]: true });
  t.same(await call('user_follow_requests_decline', { user_ids: [e, f] }), { [e]: true, [f]: true });
  const left = await requests();
  for (const pk of [a, b, c, d, e, f]) t.notOk(left.includes(pk), `${pk} is no longer pending`);
  const followers = await followerPks(DEMO);
  t.ok(followers.includes(a) && followers.includes(c) && followers.includes(d), 'approved users follow demo');
  t.notOk(followers.includes(b) || followers.includes(e), 'declined users do not');
});

t.test('close friends, notification flags, mutes and blocks', async (t) => {
  const friend = [...demo.following].find((pk) => !demo.closeFriends.has(pk))!;
  await call('close_friend_add', { user_id: friend });
  t.equal((await call('user_friendship_v1', { user_id: friend })).is_bestie, true);
  await call('close_friend_remove', { user_id: friend });
  t.equal((await call('user_friendship_v1', { user_id: friend })).is_bestie, false);
  for (const kind of ['posts', 'stories', 'reels', 'videos']) {
    t.equal(await call(`enable_${kind}_notifications`, { user_id: friend }), true);
    t.equal((await call('user_stream_by_id_flat', { user_id: friend })).friendship_status.notifications[kind], true, `${kind} on`);
    t.equal(await call(`disable_${kind}_notifications`, { user_id: friend }), true);
    t.equal((await call('user_stream_by_id_flat', { user_id: friend })).friendship_status.notifications[kind], false, `${kind} off`);
  }
  await call('enable_posts_notifications', { user_id: friend });
  await call('enable_stories_notifications', { user_id: friend });
  const flags = (await call('user_stream_by_id_flat', { user_id: friend })).friendship_status.notifications;
  t.same(flags, { posts: true, stories: true, reels: false, videos: false }, 'the four flags are independent');
  await call('mute_posts_from_follow', { user_id: friend });
  await call('mute_stories_from_follow', { user_id: friend });
  t.match(await call('user_friendship_v1', { user_id: friend }), { muting: true, is_muting_reel: true });
  await call('unmute_posts_from_follow', { user_id: friend });
  await call('unmute_stories_from_follow', { user_id: friend });
  t.match(await call('user_friendship_v1', { user_id: friend }), { muting: false, is_muting_reel: false });
  await call('user_block', { user_id: friend });
  t.match(await call('user_friendship_v1', { user_id: friend }), { blocking: true, following: false });
  await call('user_unblock', { user_id: friend });
  t.equal((await call('user_friendship_v1', { user_id: friend })).blocking, false);
});

t.test('media like, save, archive and pin; clip pin', async (t) => {
  const other = [...w.media.values()].find((m) => m.owner !== DEMO && !m.likers.has(DEMO) && !m.archived)!;
  const before = (await call('media_info', { media_pk: other.pk })).like_count;
  await call('media_like', { media_id: `${other.pk}_${other.owner}` });
  t.match(await call('media_info', { media_pk: other.pk }), { has_liked: true, like_count: before + 1 });
  t.equal((await call('liked_medias', { amount: 1 }))[0].pk, other.pk, 'shows first in liked media');
  await call('media_unlike', { media_id: other.pk });
  t.match(await call('media_info', { media_pk: other.pk }), { has_liked: false, like_count: before });
  await call('media_save', { media_id: other.pk });
  t.ok(
    (await call('collection_medias', { collection_pk: 'ALL_MEDIA_AUTO_COLLECTION', amount: 0 })).some((m: R) => m.pk === other.pk),
    'saved',
  );
  const col = demo.collections[0];
  await call('media_save', { media_id: other.pk, collection_pk: col });
  t.ok(
    (await call('collection_medias', { collection_pk: col, amount: 0 })).some((m: R) => m.pk === other.pk),
    'saved to a collection',
  );
  await call('media_unsave', { media_id: other.pk });
  t.notOk(
    (await call('collection_medias', { collection_pk: 'ALL_MEDIA_AUTO_COLLECTION', amount: 0 })).some((m: R) => m.pk === other.pk),
    'unsaved',
  );
  const mine = demo.media.find((pk) => !w.media.get(pk)!.archived && !w.media.get(pk)!.pinned)!;
  const posts = async () => ((await call('user_medias_paginated_v1', { user_id: DEMO, amount: 1000 }))[0] as R[]).map((m) => m.pk);
  await call('media_archive', { media_id: mine });
  t.notOk((await posts()).includes(mine), 'archived posts leave the profile');
  t.ok(
    ((await call('archive_medias_paginated_v1', { amount: 100 }))[0] as R[]).some((m) => m.pk === mine),
    'and show in the archive',
  );
  await call('media_unarchive', { media_id: mine });
  t.ok((await posts()).includes(mine), 'unarchived');
  t.equal(await call('media_pin', { media_pk: mine }), true);
  t.ok(
    (await call('user_pinned_medias', { user_id: DEMO })).some((m: R) => m.pk === mine),
    'pinned',
  );
  t.equal(await call('media_unpin', { media_pk: mine }), true);
  t.notOk(
    (await call('user_pinned_medias', { user_id: DEMO })).some((m: R) => m.pk === mine),
    'unpinned',
  );
  const clip = demo.media.find((pk) => w.media.get(pk)!.kind === 'clip' && !w.media.get(pk)!.clipPinned)!;
  const reels = async () => ((await call('user_clips_paginated_v1', { user_id: DEMO, amount: 1000 }))[0] as R[]).map((m) => m.pk);
  const tab = await reels();
  t.equal(tab[0], demo.pinnedClips[0], 'the reel the world pinned leads the reels tab');
  t.equal(await call('clip_pin', { media_pk: clip }), true);
  t.equal(w.media.get(clip)!.clipPinned, true);
  t.same((await reels()).slice(0, 2), [clip, tab[0]], 'the newest pin leads, the older pin follows');
  t.equal(await call('clip_unpin', { media_pk: clip }), true);
  t.equal(w.media.get(clip)!.clipPinned, false);
  t.same(await reels(), tab, 'unpinned: back in its place');
});

t.test('comments: create, reply, like, pin, delete', async (t) => {
  const media = demo.media.find((pk) => w.media.get(pk)!.comments.length > 2 && !w.media.get(pk)!.archived)!;
  const created = await call('media_comment', { media_id: media, text: 'first!' });
  t.equal((await call('media_comments_chunk', { media_id: media, max_amount: 5 }))[0][0].pk, created.pk, 'a new comment is listed first');
  const reply = await call('media_comment', { media_id: media, text: 'reply', replied_to_comment_id: created.pk });
  t.equal(reply.replied_to_comment_id, created.pk);
  t.same(
    (await call('media_comment_replies', { media_id: media, comment_id: created.pk })).map((c: R) => c.pk),
    [reply.pk],
  );
  const target = w.media.get(media)!.comments[0];
  await call('comment_like', { comment_pk: target });
  t.ok((await call('comment_likers_gql', { comment_pk: target })).some((u: R) => u.pk === DEMO));
  await call('comment_unlike', { comment_pk: target });
  t.notOk((await call('comment_likers_gql', { comment_pk: target })).some((u: R) => u.pk === DEMO));
  await call('comment_pin', { media_id: media, comment_pk: target });
  t.equal((await call('media_comments_chunk', { media_id: media, max_amount: 5 }))[0][0].pk, target, 'a pinned comment leads');
  await call('comment_unpin', { media_id: media, comment_pk: target });
  t.not((await call('media_comments_chunk', { media_id: media, max_amount: 5 }))[0][0].pk, target);
  await call('comment_bulk_delete', { media_id: media, comment_pks: [created.pk] });
  t.notOk(
    (await call('media_comments_chunk', { media_id: media, max_amount: 500 }))[0].some((c: R) => c.pk === created.pk),
    'deleted',
  );
});

t.test('livestream: created → started → ended, nothing else', async (t) => {
  const { broadcast_id } = await call('media_create_livestream', { title: 'Live' });
  t.equal((await call('media_get_livestream_info', { broadcast_id })).broadcast_status, 'created');
  await t.rejects(call('media_end_livestream', { broadcast_id }), { excType: 'ClientBadRequestError', message: /created/ });
  t.equal(await call('media_start_livestream', { broadcast_id }), true, 'start answers true');
  t.equal((await call('media_get_livestream_info', { broadcast_id })).broadcast_status, 'started');
  await t.rejects(call('media_start_livestream', { broadcast_id }), { excType: 'ClientBadRequestError', message: /started/ });
  t.equal(await call('media_end_livestream', { broadcast_id }), true, 'end answers true');
  t.equal((await call('media_get_livestream_info', { broadcast_id })).broadcast_status, 'ended');
  await t.rejects(call('media_start_livestream', { broadcast_id }), { excType: 'ClientBadRequestError', message: /ended/ });
  await t.rejects(call('media_end_livestream', { broadcast_id }), errorWith({ excType: 'ClientBadRequestError' }));
});

t.test('direct: request approval, sending, unsend, thread state', async (t) => {
  const pending = (await call('direct_pending_inbox', { amount: 1 }))[0];
  t.equal(pending.pending, true);
  await call('direct_request_approve', { thread_id: pending.id });
  const inboxIds = async () => ((await call('direct_threads', { amount: 0 })) as R[]).map((th) => th.id);
  t.ok((await inboxIds()).includes(pending.id), 'approved request moves to the inbox');
  t.notOk(((await call('direct_pending_inbox', { amount: 0 })) as R[]).some((th) => th.id === pending.id));
  const sent = await call('direct_send', { text: 'hello there', thread_ids: [pending.id] });
  t.equal((await call('direct_messages', { thread_id: pending.id, amount: 1 }))[0].id, sent.id, 'the new message is newest');
  await call('direct_message_unsend', { thread_id: pending.id, message_id: sent.id });
  t.notOk(
    (await call('direct_messages', { thread_id: pending.id, amount: 0 })).some((m: R) => m.id === sent.id),
    'unsent',
  );
  await call('direct_thread_mute', { thread_id: pending.id });
  t.equal((await call('direct_thread', { thread_id: pending.id })).muted, true);
  await call('direct_thread_unmute', { thread_id: pending.id });
  t.equal((await call('direct_thread', { thread_id: pending.id })).muted, false);
  const created = await call('direct_thread_create', { user_ids: [stranger.pk], title: '' });
  await call('direct_send', { text: 'new thread', thread_ids: [created] });
  t.equal((await call('direct_threads', { amount: 1 }))[0].id, created, 'a new thread with a message leads the inbox');
  await call('direct_thread_hide', { thread_id: created });
  t.notOk((await inboxIds()).includes(created), 'hidden');
  const photo = await call('direct_send_photo', { path: files.jpeg, thread_ids: [pending.id] });
  t.equal(photo.item_type, 'media');
  t.match(photo.media.thumbnail_url, /^https:\/\/media\.sandbox\.invalid\//);
});

t.test('inbox order: within one second, the thread messaged last leads', async (t) => {
  // A frozen clock puts every message in the same second; the order of sending must still decide.
  const frozen = createSandbox({ seed: 21, now: () => 1_700_000_000_000 });
  const me = await loginAs(frozen);
  const inbox = async () => ((await me.call('direct_threads', { amount: 0 })) as { id: string }[]).map((th) => th.id);
  const [a, b, c] = (await inbox()).slice(-3);
  const name = (id: string) => ({ [a]: 'a', [b]: 'b', [c]: 'c' })[id];
  for (const [target, order] of [
    [b, [b, a, c]],
    [a, [a, b, c]],
    [c, [c, a, b]],
    [b, [b, c, a]],
  ] as const) {
    await me.call('direct_send', { text: 'same second', thread_ids: [target] });
    const now = await inbox();
    t.equal(now[0], target, `${name(target)} leads once messaged`);
    t.same(now.filter((id) => [a, b, c].includes(id)).map(name), order.map(name), 'the others by their last message');
  }
});

t.test('notes: create, list, delete, mark seen', async (t) => {
  const note = await call('create_note', { text: 'Hello notes', audience: 0 });
  t.ok(
    (await call('get_notes')).some((n: R) => n.id === note.id),
    'my note is listed',
  );
  const unseen = [...w.notes.values()].filter((n) => n.user !== DEMO && !n.seenBy.has(DEMO)).length;
  t.ok(unseen > 0);
  t.equal(await call('last_seen_update_note'), true);
  t.equal([...w.notes.values()].filter((n) => demo.following.has(n.user) && !n.seenBy.has(DEMO)).length, 0, 'all marked seen');
  t.equal(await call('delete_note', { note_id: note.id }), true);
  t.notOk((await call('get_notes')).some((n: R) => n.id === note.id));
});

t.test('hashtag follow and unfollow', async (t) => {
  await call('hashtag_follow', { hashtag: 'travel' });
  t.ok(
    (await call('fbsearch_recent')).some(([, x]: [number, R]) => x.name === 'travel'),
    'followed tag shows in recent searches',
  );
  await call('hashtag_unfollow', { hashtag: 'travel' });
  t.notOk(demo.hashtags.has('travel'));
});

t.test('uploads appear where a user looks', async (t) => {
  const friend = [...demo.following][3];
  const loc = [...w.locations.values()][0];
  const post = await call('photo_upload', {
    path: files.jpeg,
    caption: 'New post #freshtag',
    usertags: [{ user: { pk: friend }, x: 0.1, y: 0.2 }],
    location: { pk: loc.pk, name: loc.name },
  });
  t.equal((await call('user_medias_paginated_v1', { user_id: DEMO, amount: 1 }))[0][0].pk, post.pk, 'first in posts');
  t.equal((await call('usertag_medias_paginated', { user_id: friend, amount: 1 }))[0][0].pk, post.pk, "in the tagged user's tagged posts");
  t.equal((await call('hashtag_medias_v1_chunk', { name: 'freshtag', max_amount: 5 }))[0][0].pk, post.pk, 'under its hashtag');
  t.equal((await call('location_medias_v1_chunk', { location_pk: loc.pk, max_amount: 5 }))[0][0].pk, post.pk, 'at its place');
  const reel = await call('clip_upload', { path: files.mp4, caption: 'reel' });
  const reels = (await call('user_clips_paginated_v1', { user_id: DEMO, amount: demo.pinnedClips.length + 1 }))[0] as R[];
  t.same(
    reels.map((m) => m.pk),
    [...demo.pinnedClips, reel.pk],
    'first in reels after the pinned ones',
  );
  const album = await call('album_upload', { paths: [files.jpeg, files.mp4], caption: 'album' });
  t.equal(album.media_type, 8);
  t.equal(album.resources.length, 2);
  const story = await call('photo_upload_to_story', { path: files.jpeg, mentions: [{ user: { pk: friend } }], links: [{ webUri: 'https://example.com' }] });
  t.ok(
    (await call('user_stories', { user_id: DEMO })).some((s: R) => s.pk === story.pk),
    'in stories',
  );
  t.equal(story.mentions[0].user.pk, friend);
  const highlight = await call('highlight_create', { title: 'Fresh', story_ids: [story.pk] });
  t.ok(
    (await call('user_highlights', { user_id: DEMO })).some((h: R) => h.pk === highlight.pk),
    'highlight listed',
  );
  await call('highlight_change_title', { highlight_pk: highlight.pk, title: 'Renamed' });
  t.equal((await call('highlight_info', { highlight_pk: highlight.pk })).title, 'Renamed');
  await t.rejects(call('photo_upload', { path: `${files.dir}/missing.jpg`, caption: '' }), errorWith({ excType: 'PhotoNotUpload' }));
  await t.rejects(call('video_upload', { path: '', caption: '' }), errorWith({ excType: 'VideoNotUpload' }));
});
