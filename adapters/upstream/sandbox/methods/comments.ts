// Comments (threads of replies, likes, pins, paging both ways) and livestreams.
import { bool, id, ids, int, optStr, str } from '../args.js';
import { fail } from '../errors.js';
import { findComment, findMedia, page, take } from '../lookup.js';
import { comment, userShort } from '../records.js';
import type { Ctx, MethodDef, MethodTable } from '../registry.js';
import { nextId } from '../world/social.js';
import type { CommentRec, LiveRec, MediaRec } from '../world/types.js';
import { remove } from './common.js';

const out = (ctx: Ctx, c: CommentRec) => comment(ctx.world, c, ctx.me().pk);
const topLevel = (ctx: Ctx, m: MediaRec) => m.comments.map((pk) => ctx.world.comments.get(pk)).filter((c): c is CommentRec => Boolean(c));

function addComment(ctx: Ctx, m: MediaRec, text: string, parentId: string | null): CommentRec {
  if (m.commentsDisabled) fail('CommentsDisabled', 'Comments are disabled for this media');
  if (!text.trim()) fail('ClientBadRequestError', 'The comment text is empty');
  const parent = parentId ? findComment(ctx, parentId, m) : null;
  const c: CommentRec = {
    pk: nextId(ctx.world), media: m.pk, user: ctx.me().pk, text, createdAt: ctx.nowSec(), repliedTo: parent ? parent.repliedTo ?? parent.pk : null,
    replies: [], likers: new Set(), pinned: false,
  };
  ctx.world.comments.set(c.pk, c);
  if (parent) ctx.world.comments.get(c.repliedTo!)!.replies.push(c.pk);
  else m.comments.push(c.pk);
  return c;
}

function likeComment(on: boolean, revertable: boolean): MethodDef {
  return {
    run(ctx, a) {
      const c = findComment(ctx, a.comment_pk);
      const enable = revertable && bool(a.revert) ? !on : on;
      if (enable) c.likers.add(ctx.me().pk);
      else c.likers.delete(ctx.me().pk);
      return true;
    },
  };
}

function pinComment(on: boolean, revertable: boolean): MethodDef {
  return {
    run(ctx, a) {
      const m = findMedia(ctx, a.media_id);
      if (m.owner !== ctx.me().pk) fail('ClientForbiddenError', 'Only the media owner can pin comments');
      const c = findComment(ctx, a.comment_pk, m);
      const enable = revertable && bool(a.revert) ? !on : on;
      if (enable) for (const other of topLevel(ctx, m)) other.pinned = false;
      c.pinned = enable;
      return true;
    },
  };
}

/** Newest first, the pinned comment on top, as the platform lists them. */
function ordered(ctx: Ctx, m: MediaRec): CommentRec[] {
  const list = topLevel(ctx, m).reverse();
  const pinned = list.filter((c) => c.pinned);
  return [...pinned, ...list.filter((c) => !c.pinned)];
}

export const commentMethods: MethodTable = {
  media_comment: { run: (ctx, a) => out(ctx, addComment(ctx, findMedia(ctx, a.media_id), str(a.text, 'text'), optStr(a.replied_to_comment_id))) },
  media_comment_infos: {
    run(ctx, a) {
      const result: Record<string, unknown> = {};
      for (const mid of ids(a.media_ids)) {
        const m = findMedia(ctx, mid);
        result[m.pk] = { comment_count: m.comments.length, comments_disabled: m.commentsDisabled, has_more_comments: m.comments.length > 0, caption_is_edited: false };
      }
      return { comment_infos: result, status: 'ok' };
    },
  },
  media_comment_replies: {
    run(ctx, a) {
      const m = findMedia(ctx, a.media_id);
      const parent = findComment(ctx, a.comment_id, m);
      return take(parent.replies, int(a.amount)).flatMap((pk) => (ctx.world.comments.has(pk) ? [out(ctx, ctx.world.comments.get(pk)!)] : []));
    },
  },
  media_comments_chunk: {
    run(ctx, a) {
      const [items, next] = page(ordered(ctx, findMedia(ctx, a.media_id)), a.min_id, int(a.max_amount, 'max_amount') || 20);
      return [items.map((c) => out(ctx, c)), next];
    },
  },
  media_stream_comments_v1_chunk: {
    run(ctx, a) {
      // Two cursors: max_id pages towards older comments, min_id back towards newer ones.
      const list = ordered(ctx, findMedia(ctx, a.media_id));
      const size = 20;
      const maxId = optStr(a.max_id) ?? '';
      const minId = optStr(a.min_id) ?? '';
      let start = 0;
      if (maxId) start = cursorIndex(maxId);
      else if (minId) start = Math.max(0, cursorIndex(minId) - size);
      const end = Math.min(list.length, start + size);
      return [list.slice(start, end).map((c) => out(ctx, c)), start > 0 ? String(start) : '', end < list.length ? String(end) : ''];
    },
  },
  comment_bulk_delete: {
    run(ctx, a) {
      const m = findMedia(ctx, a.media_id);
      for (const pk of ids(a.comment_pks)) {
        const c = findComment(ctx, pk, m);
        if (c.user !== ctx.me().pk && m.owner !== ctx.me().pk) fail('ClientForbiddenError', 'You can only delete your own comments or comments on your media');
        ctx.world.comments.delete(c.pk);
        if (c.repliedTo) remove(ctx.world.comments.get(c.repliedTo)?.replies ?? [], c.pk);
        else remove(m.comments, c.pk);
      }
      return true;
    },
  },
  comment_like: likeComment(true, true),
  comment_unlike: likeComment(false, false),
  comment_pin: pinComment(true, true),
  comment_unpin: pinComment(false, false),
  comment_likers_gql: {
    run(ctx, a) {
      const c = findComment(ctx, a.comment_pk);
      return take([...c.likers], int(a.amount)).flatMap((pk) => (ctx.world.users.has(pk) ? [{ ...userShort(ctx.world.users.get(pk)!), id: pk }] : []));
    },
  },
  ...liveMethods(),
};

function cursorIndex(cursor: string): number {
  if (!/^\d+$/.test(cursor)) fail('WrongCursorError', `Invalid cursor: ${cursor}`);
  return Number(cursor);
}

function findLive(ctx: Ctx, value: unknown): LiveRec {
  const bid = id(value, 'broadcast_id');
  const live = ctx.world.lives.get(bid);
  if (!live || live.owner !== ctx.me().pk) fail('ClientNotFoundError', `Broadcast not found: ${bid}`);
  return live!;
}

/** created → started → ended; any other move is refused naming the state. */
function move(from: LiveRec['state'], to: LiveRec['state']): MethodDef {
  return {
    run(ctx, a) {
      const live = findLive(ctx, a.broadcast_id);
      if (live.state !== from) fail('ClientBadRequestError', `Cannot move broadcast ${live.id} from state '${live.state}' to '${to}': it must be '${from}'`);
      live.state = to;
      return true;
    },
  };
}

function liveMethods(): MethodTable {
  return {
    media_create_livestream: {
      run(ctx, a) {
        const live: LiveRec = { id: nextId(ctx.world), owner: ctx.me().pk, title: str(a.title, 'title'), state: 'created', createdAt: ctx.nowSec(), comments: [], viewers: [] };
        ctx.world.lives.set(live.id, live);
        return {
          broadcast_id: live.id, upload_url: `rtmps://live-upload.sandbox.invalid:443/rtmp/${live.id}?s_bl=1&s_sw=0&s_vt=ig&a=sandbox`,
          stream_server: 'rtmps://live-upload.sandbox.invalid:443/rtmp/', stream_key: `${live.id}?s_bl=1&s_sw=0&s_vt=ig&a=sandbox`,
          broadcast_status: live.state, title: live.title, status: 'ok',
        };
      },
    },
    media_start_livestream: move('created', 'started'),
    media_end_livestream: move('started', 'ended'),
    media_get_livestream_info: {
      run(ctx, a) {
        const live = findLive(ctx, a.broadcast_id);
        return { id: live.id, broadcast_status: live.state, title: live.title, published_time: live.createdAt, viewer_count: live.viewers.length, broadcast_owner: userShort(ctx.me()), status: 'ok' };
      },
    },
    media_get_livestream_comments: {
      run(ctx, a) {
        const live = findLive(ctx, a.broadcast_id);
        return { comments: live.comments.map((c) => ({ pk: c.pk, text: c.text, created_at: c.at, user: userShort(ctx.world.users.get(c.user)!) })), comment_count: live.comments.length, status: 'ok' };
      },
    },
    media_get_livestream_viewers: {
      run(ctx, a) {
        const live = findLive(ctx, a.broadcast_id);
        const viewers = live.state === 'started' ? [...ctx.me().followers].slice(0, 5) : [];
        return { users: viewers.map((pk) => userShort(ctx.world.users.get(pk)!)), status: 'ok' };
      },
    },
  };
}
