// A user's media lists (posts, reels, videos, tagged, pinned), profile streams and suggestions.
import { id, int, str } from '../args.js';
import { assertVisible, findUser, findUsername } from '../lookup.js';
import { pageBy, type SortKey } from '../paging.js';
import { postCount, userFull, userShort } from '../records.js';
import { relationship } from '../records-direct.js';
import type { Ctx, MethodTable } from '../registry.js';
import type { MediaKind, UserRec } from '../world/types.js';
import { mediaList, newestFirst, visible } from './common.js';
import { notifyFlags } from './users.js';

function mediaPage(ctx: Ctx, user: UserRec, pks: readonly string[], amount: number, cursor: unknown, keyOf = newestFirst(ctx)): [unknown[], string] {
  assertVisible(ctx, user);
  const [items, next] = pageBy(visible(ctx, pks), keyOf, cursor, amount > 0 ? amount : 33);
  return [mediaList(ctx, items), next];
}

const ofKinds = (ctx: Ctx, user: UserRec, kinds: readonly MediaKind[]) => user.media.filter((pk) => kinds.includes(ctx.world.media.get(pk)!.kind));

/** The reels tab: pinned reels first (most recently pinned leading), then the rest newest first. */
function reelsTabKey(ctx: Ctx, user: UserRec): (pk: string) => SortKey {
  const newest = newestFirst(ctx);
  return (pk) => {
    const pinnedAt = user.pinnedClips.indexOf(pk);
    return pinnedAt >= 0 ? [0n, BigInt(pinnedAt), 0n, 0n] : [1n, 0n, ...newest(pk)];
  };
}

function stream(ctx: Ctx, user: UserRec, flat: boolean): Record<string, unknown> {
  const me = ctx.me();
  const full = { ...userFull(ctx.world, user, me.pk), following_tag_count: user.hashtags.size };
  const friendship = {
    ...relationship(ctx.world, me.pk, user.pk),
    notifications: Object.fromEntries(['posts', 'stories', 'reels', 'videos'].map((k) => [k, notifyFlags(me, user.pk).includes(k as never)])),
  };
  if (flat) return { ...full, friendship_status: friendship, highlight_reel_count: user.highlights.length, has_highlight_reels: user.highlights.length > 0 };
  return { user: { ...full, friendship_status: friendship, highlight_reel_count: user.highlights.length }, status: 'ok' };
}

function suggestions(ctx: Ctx, user: UserRec, count: number): UserRec[] {
  const me = ctx.me();
  const out: UserRec[] = [];
  for (const pk of user.following) {
    if (pk !== me.pk && !me.following.has(pk)) out.push(ctx.world.users.get(pk)!);
    if (out.length >= count) break;
  }
  return out;
}

const dollars = (cents: number) => `$${(cents / 100).toLocaleString('en-US', { maximumFractionDigits: 0 })}`;

/** fundraiser/<user>/standalone_fundraiser_info: the profile's running fundraiser, or none. */
function fundraiserInfo(ctx: Ctx, user: UserRec): Record<string, unknown> {
  const f = ctx.world.fundraisers.get(user.pk);
  if (!f) return { has_standalone_fundraiser: false, standalone_fundraiser_info: null, status: 'ok' };
  const now = ctx.nowSec();
  const supporters = f.supporters.flatMap((pk) => (ctx.world.users.has(pk) ? [userShort(ctx.world.users.get(pk)!)] : []));
  return {
    has_standalone_fundraiser: true,
    standalone_fundraiser_info: {
      fundraiser_id: f.id,
      fundraiser_title: f.title,
      fundraiser_description: f.description,
      owner: userShort(user),
      beneficiary_name: f.beneficiary,
      beneficiary_type: 'charity',
      currency: 'USD',
      goal_amount: f.goalCents / 100,
      amount_raised: f.raisedCents / 100,
      formatted_goal_amount: dollars(f.goalCents),
      formatted_amount_raised: dollars(f.raisedCents),
      percent_of_goal_raised: Math.floor((f.raisedCents * 100) / f.goalCents),
      supporter_count: supporters.length,
      supporters_preview: supporters.slice(0, 3),
      start_time: f.startAt,
      end_time: f.endAt,
      is_active: now >= f.startAt && now < f.endAt,
      has_viewer_donated: f.supporters.includes(ctx.me().pk),
      can_viewer_donate: user.pk !== ctx.me().pk,
      donate_url: `https://www.instagram.com/donate/${f.id}/`,
    },
    status: 'ok',
  };
}

export const feedMethods: MethodTable = {
  user_medias_paginated_v1: {
    run(ctx, a) {
      const user = findUser(ctx, a.user_id);
      return mediaPage(ctx, user, user.media, int(a.amount), a.end_cursor);
    },
  },
  user_clips_paginated_v1: {
    run(ctx, a) {
      const user = findUser(ctx, a.user_id);
      return mediaPage(ctx, user, ofKinds(ctx, user, ['clip']), int(a.amount), a.end_cursor, reelsTabKey(ctx, user));
    },
  },
  user_videos_paginated_v1: {
    run(ctx, a) {
      const user = findUser(ctx, a.user_id);
      return mediaPage(ctx, user, ofKinds(ctx, user, ['video', 'igtv', 'clip']), int(a.amount), a.end_cursor);
    },
  },
  usertag_medias_paginated: {
    run(ctx, a) {
      const user = findUser(ctx, a.user_id);
      return mediaPage(ctx, user, user.tagged, int(a.amount), a.end_cursor);
    },
  },
  user_pinned_medias: { run: (ctx, a) => mediaList(ctx, findUser(ctx, a.user_id).pinned) },
  user_guides_v1: {
    run(ctx, a) {
      const user = findUser(ctx, a.user_id);
      const first = visible(ctx, user.media)[0];
      if (!first) return [];
      const [cover] = mediaList(ctx, [first]);
      return [
        { id: `1${user.pk}`, title: `${user.fullName}'s favourites`, description: 'A guide generated by the sandbox', cover_media: cover, feedback_item: null },
      ];
    },
  },
  user_stream_by_id_flat: { run: (ctx, a) => stream(ctx, findUser(ctx, a.user_id), true) },
  user_stream_by_id_v1: { run: (ctx, a) => stream(ctx, findUser(ctx, a.user_id), false) },
  user_stream_by_username_flat: { run: (ctx, a) => stream(ctx, findUsername(ctx, a.username), true) },
  user_stream_by_username_v1: { run: (ctx, a) => stream(ctx, findUsername(ctx, a.username), false) },
  user_web_profile_info_v1: {
    run(ctx, a) {
      const user = findUsername(ctx, a.username);
      const full = userFull(ctx.world, user, ctx.me().pk);
      return {
        data: {
          user: {
            ...full,
            id: user.pk,
            edge_followed_by: { count: user.followers.size },
            edge_follow: { count: user.following.size },
            edge_owner_to_timeline_media: { count: postCount(ctx.world, user) },
          },
        },
        status: 'ok',
      };
    },
  },
  chaining: {
    run: (ctx, a) => ({
      users: suggestions(ctx, findUser(ctx, a.user_id), 20).map((u) => ({ ...userShort(u), chaining_info: { sources: '[1]' } })),
      status: 'ok',
    }),
  },
  fetch_suggestion_details: {
    run(ctx, a) {
      findUser(ctx, a.user_id);
      const chained = str(a.chained_ids, 'chained_ids')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      return {
        users: chained.flatMap((pk) => (ctx.world.users.has(pk) ? [{ ...userShort(ctx.world.users.get(pk)!), social_context: 'Followed by friends' }] : [])),
        status: 'ok',
      };
    },
  },
  discover_recommended_accounts_for_category_v1: { run: (ctx, a) => ({ users: suggestions(ctx, findUser(ctx, a.user_id), 10).map(userShort), status: 'ok' }) },
  featured_accounts_v1: { run: (ctx, a) => ({ accounts: suggestions(ctx, findUser(ctx, a.target_user_id), 3).map(userShort), status: 'ok' }) },
  standalone_fundraiser_info_v1: { run: (ctx, a) => fundraiserInfo(ctx, findUser(ctx, a.user_id)) },
  fbsearch_suggested_profiles: { run: (ctx, a) => suggestions(ctx, findUser(ctx, a.user_id), 15).map(userShort) },
  creator_info: {
    run(ctx, a) {
      const user = findUser(ctx, a.user_id);
      return [
        userShort(user),
        {
          entry_point: str(a.entry_point),
          category: user.category ?? 'Creator',
          is_business: user.isBusiness,
          follower_count: user.followers.size,
          media_count: postCount(ctx.world, user),
          user_id: id(user.pk),
        },
      ];
    },
  },
};
