// Comments: threads of replies, likes, pins, and paging both ways.
import { bool, ids, int, optStr, str } from '../args.js';
import { fail } from '../errors.js';
import { findComment, findMedia } from '../lookup.js';
import { big, pageBy, take, windowBy, type SortKey } from '../paging.js';
import { comment, commentCount, userShort } from '../records.js';
import type { Ctx, MethodDef, MethodTable } from '../registry.js';
import { nextId } from '../world/social.js';
import type { CommentRec, MediaRec } from '../world/types.js';
import { remove } from './common.js';

const out = (ctx: Ctx, c: CommentRec) => comment(ctx.world, c, ctx.me().pk);
const topLevel = (ctx: Ctx, m: MediaRec) => m.comments.map((pk) => ctx.world.comments.get(pk)).filter((c): c is CommentRec => Boolean(c));

function addComment(ctx: Ctx, m: MediaRec, text: string, parentId: string | null): CommentRec {
  if (m.commentsDisabled) fail('CommentsDisabled', 'Comments are disabled for this media');
  if (!text.trim()) fail('ClientBadRequestError', 'The comment text is empty');
  const parent = parentId ? findComment(ctx, parentId, m) : null;
  const c: CommentRec = {
    pk: nextId(ctx.world),
    media: m.pk,
    user: ctx.me().pk,
    text,
    createdAt: ctx.nowSec(),
    repliedTo: parent ? (parent.repliedTo ?? parent.pk) : null,
    replies: [],
    likers: new Set(),
    pinned: false,
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
const commentOrder = (c: CommentRec): SortKey => [c.pinned ? 0n : 1n, -BigInt(c.createdAt), -big(c.pk)];

export const commentMethods: MethodTable = {
  media_comment: { run: (ctx, a) => out(ctx, addComment(ctx, findMedia(ctx, a.media_id), str(a.text, 'text'), optStr(a.replied_to_comment_id))) },
  media_comment_infos: {
    run(ctx, a) {
      const result: Record<string, unknown> = {};
      for (const mid of ids(a.media_ids)) {
        const m = findMedia(ctx, mid);
        // Replies count too, as in the media's own comment_count.
        const count = commentCount(ctx.world, m);
        result[m.pk] = { comment_count: count, comments_disabled: m.commentsDisabled, has_more_comments: count > 0, caption_is_edited: false };
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
      const [items, next] = pageBy(topLevel(ctx, findMedia(ctx, a.media_id)), commentOrder, a.min_id, int(a.max_amount, 'max_amount') || 20);
      return [items.map((c) => out(ctx, c)), next];
    },
  },
  media_stream_comments_v1_chunk: {
    run(ctx, a) {
      // Two cursors: max_id pages towards older comments, min_id back towards newer ones.
      const page = windowBy(topLevel(ctx, findMedia(ctx, a.media_id)), commentOrder, { after: optStr(a.max_id), before: optStr(a.min_id) }, 20);
      return [page.items.map((c) => out(ctx, c)), page.before, page.after];
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
};
