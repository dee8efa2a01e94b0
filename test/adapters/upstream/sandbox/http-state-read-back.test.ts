// State changes read back over HTTP: followed hashtags, notification settings, bookmarked audio,
// counts that agree with the lists, and following across a block. Each is changed through its
// route and then read through the route that shows it.
import t from 'tap';
import { demoOverHttp } from '../../../helpers/full-app.js';
import type { R } from '../../../helpers/session-http.js';

const DEMO = '5000000001';
// The world only picks subjects; every assertion reads HTTP.
const { call, walk, world, demo } = await demoOverHttp(t);

/** Every feed item of the home feed, page by page. */
async function timeline(): Promise<R[]> {
  const items: R[] = [];
  let maxId: string | undefined;
  for (let pages = 0; pages < 100; pages++) {
    const page = await call('GET', '/account/feed/timeline', maxId ? { max_id: maxId } : {});
    items.push(...(page.feed_items as R[]).map((f) => f.media_or_ad as R));
    if (!page.more_available) return items;
    maxId = page.next_max_id;
  }
  throw new Error('the feed did not end');
}

t.test('followed hashtags show in the home feed, in GET /search/recent (all of them) and the raw stream', async (t) => {
  const tags = ['sunset', 'coffee', 'surf', 'tea'];
  const tagCount = async () => (await call('GET', '/user/stream', { user_id: DEMO, view: 'raw' })).user.following_tag_count;
  t.equal(await tagCount(), 0, 'following no hashtag at first');
  t.notOk(
    (await timeline()).some((m) => m.follow_hashtag_info),
    'no hashtag posts in the feed',
  );
  for (const tag of tags) t.equal(await call('POST', '/hashtag/follow', { hashtag: tag }), true);
  const recent = ((await call('GET', '/search/recent')) as [number, R][]).filter(([kind]) => kind === 1).map(([, h]) => h.name);
  t.same(recent, [...tags].reverse(), 'GET /search/recent: every followed hashtag, the latest first');
  t.equal(await tagCount(), tags.length, 'GET /user/stream?view=raw: following_tag_count');
  const fromTags = (await timeline()).filter((m) => m.follow_hashtag_info);
  t.ok(fromTags.length >= tags.length, `the feed brings in posts of followed hashtags (${fromTags.length})`);
  for (const m of fromTags)
    t.ok(
      tags.includes(m.follow_hashtag_info.name) && (m.caption_text as string).includes(`#${m.follow_hashtag_info.name}`),
      `${m.pk} is tagged #${m.follow_hashtag_info.name}`,
    );
  for (const tag of tags) t.equal(await call('DELETE', '/hashtag/follow', { hashtag: tag }), true);
  t.notOk(
    (await timeline()).some((m) => m.follow_hashtag_info),
    'unfollowed: gone from the feed',
  );
  t.equal(await tagCount(), 0);
});

t.test('the home feed pages with max_id and repeats no post', async (t) => {
  const items = await timeline();
  t.ok(items.length > 12, `more than one page (${items.length} posts)`);
  t.equal(new Set(items.map((m) => m.pk)).size, items.length, 'no post twice');
});

t.test('notification settings change what GET /notifications shows', async (t) => {
  const kinds = async () => {
    const news = await call('GET', '/notifications');
    return [...(news.new_stories as R[]), ...(news.old_stories as R[])].map((s) => s.notif_name as string);
  };
  const likes = async () => (await kinds()).filter((k) => k === 'like').length;
  t.ok((await likes()) > 0, 'likes show at first');
  t.equal(await call('PATCH', '/notifications/settings', { content_type: 'likes', setting_value: 'off' }), true);
  t.equal(await likes(), 0, 'likes off: none');
  t.ok((await kinds()).includes('user_followed'), 'other kinds still show');
  t.equal(await call('PATCH', '/notifications/settings', { content_type: 'likes', setting_value: 'following_only' }), true);
  const news = await call('GET', '/notifications');
  const likers = [...(news.new_stories as R[]), ...(news.old_stories as R[])].filter((s) => s.notif_name === 'like').map((s) => s.args.profile_id as string);
  t.ok(
    likers.every((pk) => demo.following.has(pk)),
    `following_only: only likes from followed accounts (${likers.length})`,
  );
  t.equal(
    await call('PATCH', '/notifications/settings', { content_type: 'user_tagged', setting_value: 'off' }),
    true,
    'every content type of the route is accepted',
  );
  t.notOk((await kinds()).includes('usertag'), 'user_tagged off: no tag notifications');
  t.equal(await call('PATCH', '/notifications/settings', { content_type: 'mute_all', setting_value: '1_hour' }), true);
  t.same((await call('GET', '/notifications')).new_stories, [], 'mute_all: nothing new while paused');
  t.equal(await call('PATCH', '/notifications/settings', { content_type: 'mute_all', setting_value: 'cancel' }), true);
  t.ok(((await call('GET', '/notifications')).new_stories as R[]).length > 0, 'cancel: new items again');
  t.equal(await call('DELETE', '/notifications/settings'), true);
  t.same(await kinds(), [], 'everything off: an empty inbox');
  for (const type of ['likes', 'new_follower', 'comments', 'user_tagged'])
    await call('PATCH', '/notifications/settings', { content_type: type, setting_value: 'everyone' });
  t.ok((await likes()) > 0, 'back on');
});

t.test('a bookmarked audio shows as is_bookmarked in GET /track and in its reels', async (t) => {
  const reel = demo.media.map((pk) => world.media.get(pk)!).find((m) => m.kind === 'clip' && m.track && !m.archived)!;
  const trackId = reel.track!;
  const saved = async () => (await call('GET', '/track', { id: trackId })).metadata.music_info.music_consumption_info.is_bookmarked;
  const inReel = async () => (await call('GET', '/media', { pk: reel.pk })).clips_metadata.music_info.music_consumption_info.is_bookmarked;
  t.equal(await saved(), false, 'not saved at first');
  t.equal(await inReel(), false);
  t.equal(await call('POST', '/music/bookmark', { original_audio_id: trackId }), true);
  t.equal(await saved(), true, 'GET /track: is_bookmarked');
  t.equal(await inReel(), true, 'GET /media of a reel using it: is_bookmarked');
});

t.test('counts agree with the lists', async (t) => {
  const user = await call('GET', '/user', { user_id: DEMO });
  const posts = await walk('/user/posts', { user_id: DEMO, amount: 50 });
  t.equal(user.media_count, posts.length, `media_count ${user.media_count} = the posts GET /user/posts lists (archived ones left out)`);
  t.ok(
    demo.media.some((pk) => world.media.get(pk)!.archived),
    'demo does have archived posts',
  );
  const busy = demo.media.find((pk) => world.media.get(pk)!.comments.some((c) => world.comments.get(c)!.replies.length > 0))!;
  const media = await call('GET', '/media', { pk: busy });
  const infos = await call('GET', '/media/comment/infos', { media_ids: busy });
  const top = await walk('/media/comments', { media_id: busy, amount: 50 });
  t.ok(top.length < media.comment_count, `replies make comment_count (${media.comment_count}) more than the top-level comments (${top.length})`);
  t.equal(infos.comment_infos[busy].comment_count, media.comment_count, 'GET /media/comment/infos counts as the media does');
});

t.test('following across a block changes nothing until unblocked', async (t) => {
  const friend = [...demo.following].find((pk) => demo.followers.has(pk) && !world.users.get(pk)!.isPrivate)!;
  const friendship = () => call('GET', '/user/friendship', { user_id: friend });
  t.equal(await call('POST', '/user/block', { user_id: friend }), true);
  t.match(await friendship(), { blocking: true, following: false, followed_by: false }, 'a block ends the follow both ways');
  t.equal(await call('POST', '/user/follow', { user_id: friend }), false, 'following a blocked account answers false');
  t.match(await friendship(), { blocking: true, following: false }, 'still blocked, still not following');
  t.equal(await call('DELETE', '/user/block', { user_id: friend }), true);
  t.equal(await call('POST', '/user/follow', { user_id: friend }), true, 'after unblocking, the follow goes through');
  t.match(await friendship(), { blocking: false, following: true });
});
