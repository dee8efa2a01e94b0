// Users and relationships: profiles, followers and following, requests, close friends,
// per-user notification flags, mutes and blocks.
import { ids, int, str } from '../args.js';
import { fail } from '../errors.js';
import { assertVisible, findUser, findUsername } from '../lookup.js';
import { pageBy } from '../paging.js';
import { userFull, userShort } from '../records.js';
import { relationship, relationshipShort } from '../records-direct.js';
import { andReturn } from './common.js';
import type { Ctx, MethodDef, MethodTable } from '../registry.js';
import { follow, followedSince, requestedSince, requestFollow, unfollow } from '../world/users.js';
import type { NotifyKind, UserRec } from '../world/types.js';

const shorts = (ctx: Ctx, pks: Iterable<string>) => [...pks].flatMap((pk) => (ctx.world.users.has(pk) ? [userShort(ctx.world.users.get(pk)!)] : []));

/** Followers and following page in the order the follows were made, keyed on when. */
function followList(ctx: Ctx, user: UserRec, which: 'followers' | 'following', amount: number, cursor: unknown): [unknown[], string] {
  assertVisible(ctx, user);
  const since = (pk: string) => BigInt(which === 'followers' ? followedSince(ctx.world, pk, user.pk) : followedSince(ctx.world, user.pk, pk));
  // Every follow made or unmade changes the set's size or the edge counter: the sorted order holds until then.
  const memo = { owner: user[which], version: `${user[which].size}:${ctx.world.counters.edge}` };
  const [pks, next] = pageBy(
    () => [...user[which]],
    (pk) => [since(pk)],
    cursor,
    amount > 0 ? amount : 100,
    memo,
  );
  return [shorts(ctx, pks), next];
}

function searchIn(ctx: Ctx, pks: Iterable<string>, query: string): unknown[] {
  const q = query.trim().toLowerCase();
  return shorts(
    ctx,
    [...pks].filter((pk) => {
      const u = ctx.world.users.get(pk);
      return u && (u.username.includes(q) || u.fullName.toLowerCase().includes(q));
    }),
  );
}

/**
 * Follow as the platform does: a private account gets a request instead. A block stands between
 * the two accounts either way: the platform leaves the friendship as it is (it does not unblock on
 * its own) and answers it, and aiograpi's user_follow returns its `following`, so false.
 */
function doFollow(ctx: Ctx, target: UserRec): boolean {
  const me = ctx.me();
  if (target.pk === me.pk) fail('InvalidTargetUser', 'You cannot follow yourself');
  if (me.blocked.has(target.pk) || target.blocked.has(me.pk)) return false;
  // aiograpi answers friendship_status.following: a private account gets a request, so false.
  if (target.isPrivate && !target.followers.has(me.pk)) {
    requestFollow(ctx.world, me.pk, target.pk);
    return false;
  }
  follow(ctx.world, me.pk, target.pk);
  return true;
}

/** A block ends every tie between the two accounts: follows and requests both ways, close friends. */
function block(ctx: Ctx, target: UserRec): boolean {
  const me = ctx.me();
  me.blocked.add(target.pk);
  unfollow(ctx.world, me.pk, target.pk);
  unfollow(ctx.world, target.pk, me.pk);
  me.requests.delete(target.pk);
  target.requests.delete(me.pk);
  me.closeFriends.delete(target.pk);
  target.closeFriends.delete(me.pk);
  return true;
}

function answerRequest(ctx: Ctx, pk: string, approve: boolean): boolean {
  const me = ctx.me();
  const requester = findUser(ctx, pk);
  if (!me.requests.delete(requester.pk)) return false;
  if (approve) follow(ctx.world, requester.pk, me.pk);
  return true;
}

function notifyFlag(kind: NotifyKind, revertKey: 'revert' | 'disable' | null, on: boolean): MethodDef {
  return {
    run(ctx, a) {
      const me = ctx.me();
      const target = findUser(ctx, a.user_id);
      const enable = revertKey && a[revertKey] ? false : on;
      const flags = me.notify.get(target.pk) ?? new Set<NotifyKind>();
      if (enable) flags.add(kind);
      else flags.delete(kind);
      me.notify.set(target.pk, flags);
      return true;
    },
  };
}

function toggle(set: (me: UserRec) => Set<string>, on: boolean, revertable: boolean): MethodDef {
  return {
    run(ctx, a) {
      const target = findUser(ctx, a.user_id);
      const enable = revertable && a.revert ? !on : on;
      if (enable) set(ctx.me()).add(target.pk);
      else set(ctx.me()).delete(target.pk);
      return true;
    },
  };
}

export const userMethods: MethodTable = {
  user_info: { run: (ctx, a) => userFull(ctx.world, findUser(ctx, a.user_id), ctx.me().pk) },
  user_info_by_username: { run: (ctx, a) => userFull(ctx.world, findUsername(ctx, a.username), ctx.me().pk) },
  // Beyond the route map: the README's "Adding a route" recipe exposes it (test/project/readme-recipe.test.ts).
  user_id_from_username: { run: (ctx, a) => findUsername(ctx, a.username).pk },
  user_info_by_username_v1: { run: (ctx, a) => userFull(ctx.world, findUsername(ctx, a.username), ctx.me().pk) },
  user_about_v1: {
    run(ctx, a) {
      const u = findUser(ctx, a.user_id);
      const joined = new Date(u.joined * 1000);
      return {
        username: u.username,
        is_verified: u.isVerified,
        country: u.country,
        date: joined.toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' }),
        former_usernames: '0',
      };
    },
  },
  user_followers_v1_chunk: { run: (ctx, a) => followList(ctx, findUser(ctx, a.user_id), 'followers', int(a.max_amount), a.max_id) },
  user_following_v1_chunk: { run: (ctx, a) => followList(ctx, findUser(ctx, a.user_id), 'following', int(a.max_amount), a.max_id) },
  search_followers_v1: { run: (ctx, a) => searchIn(ctx, findUser(ctx, a.user_id).followers, str(a.query, 'query')) },
  search_following_v1: { run: (ctx, a) => searchIn(ctx, findUser(ctx, a.user_id).following, str(a.query, 'query')) },
  user_follow: { run: (ctx, a) => doFollow(ctx, findUser(ctx, a.user_id)) },
  user_unfollow: {
    run(ctx, a) {
      const target = findUser(ctx, a.user_id);
      target.requests.delete(ctx.me().pk);
      unfollow(ctx.world, ctx.me().pk, target.pk);
      return true;
    },
  },
  user_remove_follower: {
    run(ctx, a) {
      const target = findUser(ctx, a.user_id);
      unfollow(ctx.world, target.pk, ctx.me().pk);
      return true;
    },
  },
  user_follow_request_approve: { run: (ctx, a) => answerRequest(ctx, str(a.user_id), true) },
  user_follow_request_decline: { run: (ctx, a) => answerRequest(ctx, str(a.user_id), false) },
  user_follow_requests_approve: { run: (ctx, a) => Object.fromEntries(ids(a.user_ids).map((pk) => [pk, answerRequest(ctx, pk, true)])) },
  user_follow_requests_decline: { run: (ctx, a) => Object.fromEntries(ids(a.user_ids).map((pk) => [pk, answerRequest(ctx, pk, false)])) },
  user_follow_requests_chunk: {
    run(ctx, a) {
      const me = ctx.me();
      const [pks, next] = pageBy(
        [...me.requests],
        (pk) => [BigInt(requestedSince(ctx.world, pk, me.pk))],
        a.max_id,
        int(a.max_amount) > 0 ? int(a.max_amount) : 100,
      );
      return [shorts(ctx, pks), next];
    },
  },
  user_friendship_v1: { run: (ctx, a) => relationship(ctx.world, ctx.me().pk, findUser(ctx, a.user_id).pk) },
  user_friendships_v1: { run: (ctx, a) => ids(a.user_ids).map((pk) => relationshipShort(ctx.world, ctx.me().pk, findUser(ctx, pk).pk)) },
  close_friend_add: { run: (ctx, a) => andReturn(ctx.me().closeFriends.add(findUser(ctx, a.user_id).pk), true) },
  close_friend_remove: { run: (ctx, a) => andReturn(ctx.me().closeFriends.delete(findUser(ctx, a.user_id).pk), true) },
  enable_posts_notifications: notifyFlag('posts', 'disable', true),
  enable_stories_notifications: notifyFlag('stories', 'revert', true),
  enable_reels_notifications: notifyFlag('reels', 'revert', true),
  enable_videos_notifications: notifyFlag('videos', 'revert', true),
  disable_posts_notifications: notifyFlag('posts', null, false),
  disable_stories_notifications: notifyFlag('stories', null, false),
  disable_reels_notifications: notifyFlag('reels', null, false),
  disable_videos_notifications: notifyFlag('videos', null, false),
  mute_posts_from_follow: toggle((me) => me.mutedPosts, true, true),
  unmute_posts_from_follow: toggle((me) => me.mutedPosts, false, false),
  mute_stories_from_follow: toggle((me) => me.mutedStories, true, true),
  unmute_stories_from_follow: toggle((me) => me.mutedStories, false, false),
  user_block: { run: (ctx, a) => block(ctx, findUser(ctx, a.user_id)) },
  user_unblock: toggle((me) => me.blocked, false, false),
};

/** Notification flags a viewer has set for a user (for tests and the user stream). */
export const notifyFlags = (me: UserRec, pk: string): NotifyKind[] => [...(me.notify.get(pk) ?? [])];
