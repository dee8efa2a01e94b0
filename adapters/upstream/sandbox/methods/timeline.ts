// The home feed: the latest posts of followed accounts (muted ones left out) and of followed
// hashtags, newest first, page by page; and single feed items. Both carry raw media.
import { findMedia } from '../lookup.js';
import { pageBy } from '../paging.js';
import type { Ctx, MethodTable } from '../registry.js';
import { newestFirst, rawMedia, visible } from './common.js';

/** Posts of each followed account in the feed, and of each followed hashtag. */
const PER_ACCOUNT = 2;
const PER_HASHTAG = 3;
const PAGE = 12;

/** Feed posts, each with the followed hashtag that brought it in (null: a followed account's post). */
function feedPosts(ctx: Ctx): Map<string, string | null> {
  const me = ctx.me();
  const posts = new Map<string, string | null>();
  for (const pk of me.following) {
    if (me.mutedPosts.has(pk)) continue;
    for (const m of visible(ctx, ctx.world.users.get(pk)?.media ?? []).slice(0, PER_ACCOUNT)) posts.set(m, null);
  }
  // A followed hashtag brings its newest posts into the feed, as the platform's "follow hashtag" does.
  for (const tag of [...me.hashtags].reverse()) {
    const fresh = visible(ctx, ctx.world.hashtags.get(tag)?.media ?? []).filter((m) => !posts.has(m) && ctx.world.media.get(m)!.owner !== me.pk);
    for (const m of fresh.slice(0, PER_HASHTAG)) posts.set(m, tag);
  }
  return posts;
}

function feedItem(ctx: Ctx, pk: string, tag: string | null): Record<string, unknown> {
  const media = rawMedia(ctx, ctx.world.media.get(pk)!);
  const hashtag = tag ? ctx.world.hashtags.get(tag) : undefined;
  return { media_or_ad: hashtag ? { ...media, follow_hashtag_info: { id: hashtag.id, name: hashtag.name, following: 1, allow_following: 1 } } : media };
}

export const timelineMethods: MethodTable = {
  new_feed_exist: { run: () => false },
  get_timeline_feed: {
    run(ctx, a) {
      const posts = feedPosts(ctx);
      const [page, next] = pageBy([...posts.keys()], newestFirst(ctx), a.max_id, PAGE);
      return { feed_items: page.map((pk) => feedItem(ctx, pk, posts.get(pk)!)), more_available: next !== '', next_max_id: next || null, status: 'ok' };
    },
  },
  feed_user_stream_item: { run: (ctx, a) => ({ items: [{ media_or_ad: rawMedia(ctx, findMedia(ctx, a.item_id)) }], status: 'ok' }) },
};
