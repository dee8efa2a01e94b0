// Direct threads: inbox, pending and spam boxes, thread state (mute, hide, unread, title),
// messages (read, seen, like, react, unsend) and search.
import { bool, id, ids, int, list, optStr, str } from '../args.js';
import { fail } from '../errors.js';
import { findMessage, findThread, findUser } from '../lookup.js';
import { big, pageBy, sortBy, take, type SortKey } from '../paging.js';
import { channel, channelsOf, userShort } from '../records.js';
import { message, shortThread, thread } from '../records-direct.js';
import type { Ctx, MethodDef, MethodTable } from '../registry.js';
import { makeThread } from '../world/social.js';
import type { Folder, ThreadRec, ThreadUserState } from '../world/types.js';
import { mediaList } from './common.js';

/** When a thread was last active: its newest message (second, then order of sending), else its creation. */
function lastActivity(ctx: Ctx, t: ThreadRec): [number, number] {
  const last = ctx.world.messages.get(t.messages[t.messages.length - 1]);
  return last ? [last.ts, last.seq] : [t.createdAt, 0];
}

/** Most recently active first (timestamps are whole seconds, so ties are common: order of sending). */
function activityOrder(ctx: Ctx): (t: ThreadRec) => SortKey {
  return (t) => {
    const [ts, seq] = lastActivity(ctx, t);
    return [-BigInt(ts), -BigInt(seq), big(t.id)];
  };
}

function inFolder(ctx: Ctx, folder: Folder, unreadOnly: boolean): ThreadRec[] {
  const me = ctx.me().pk;
  return [...ctx.world.threads.values()].filter((t) => {
    const s = t.state.get(me);
    return s !== undefined && s.folder === folder && (!unreadOnly || s.unread);
  });
}

/** A folder's threads, the most recently active first. */
export function box(ctx: Ctx, folder: Folder, unreadOnly = false): ThreadRec[] {
  return sortBy(inFolder(ctx, folder, unreadOnly), activityOrder(ctx));
}

const threadsOut = (ctx: Ctx, list: ThreadRec[], limit = 20) => list.map((t) => thread(ctx.world, t, ctx.me().pk, limit));

/**
 * Keyed on last activity: a thread that gets a message mid-walk moves to the top, before the
 * cursor, so the walk neither repeats it nor (for threads already passed) shows it twice; like the
 * platform's oldest_cursor, a refresh of the first page brings it back.
 */
function chunk(ctx: Ctx, folder: Folder, cursor: unknown, limit: unknown, unread = false): [unknown[], string] {
  const [items, next] = pageBy(inFolder(ctx, folder, unread), activityOrder(ctx), cursor, 20);
  return [threadsOut(ctx, items, optLimit(limit)), next];
}

const optLimit = (value: unknown) => (value === null || value === undefined ? 20 : int(value));
const mine = (ctx: Ctx, t: ThreadRec): ThreadUserState => t.state.get(ctx.me().pk)!;

function stateFlag(key: 'muted' | 'vcMuted' | 'unread', on: boolean, revertable: boolean): MethodDef {
  return {
    run(ctx, a) {
      mine(ctx, findThread(ctx, a.thread_id))[key] = revertable && bool(a.revert) ? !on : on;
      return true;
    },
  };
}

function react(on: boolean): MethodDef {
  return {
    run(ctx, a) {
      const t = findThread(ctx, a.thread_id);
      const m = findMessage(ctx, t, a.message_id);
      if (on) m.reactions.set(ctx.me().pk, str(a.emoji, 'emoji'));
      else m.reactions.delete(ctx.me().pk);
      return true;
    },
  };
}

function likeMessage(on: boolean): MethodDef {
  return {
    run(ctx, a) {
      const m = findMessage(ctx, findThread(ctx, a.thread_id), a.message_id);
      if (on) m.likes.add(ctx.me().pk);
      else m.likes.delete(ctx.me().pk);
      return true;
    },
  };
}

/** The thread with exactly these participants (and the caller), created when missing. */
export function threadWith(ctx: Ctx, userIds: string[]): ThreadRec {
  const me = ctx.me().pk;
  const wanted = [...new Set([me, ...userIds.map((u) => findUser(ctx, u).pk)])];
  if (wanted.length < 2) fail('ClientBadRequestError', 'A thread needs at least one other user');
  for (const t of ctx.world.threads.values()) {
    if (t.users.length === wanted.length && wanted.every((u) => t.users.includes(u)) && t.state.has(me)) return t;
  }
  const t = makeThread(ctx.world, null, wanted, '', ctx.nowSec());
  for (const u of wanted) if (u !== me) t.state.get(u)!.folder = ctx.world.users.get(u)!.following.has(me) ? 'inbox' : 'pending';
  return t;
}

export const directMethods: MethodTable = {
  direct_threads: {
    run: (ctx, a) => threadsOut(ctx, take(box(ctx, 'inbox', str(a.selected_filter) === 'unread'), int(a.amount)), optLimit(a.thread_message_limit)),
  },
  direct_threads_chunk: { run: (ctx, a) => chunk(ctx, 'inbox', a.cursor, a.thread_message_limit, str(a.selected_filter) === 'unread') },
  direct_pending_inbox: { run: (ctx, a) => threadsOut(ctx, take(box(ctx, 'pending'), int(a.amount))) },
  direct_pending_chunk: { run: (ctx, a) => chunk(ctx, 'pending', a.cursor, null) },
  direct_requests: { run: (ctx, a) => threadsOut(ctx, take(box(ctx, 'pending'), int(a.amount))) },
  direct_spam_inbox: { run: (ctx, a) => threadsOut(ctx, take(box(ctx, 'spam'), int(a.amount))) },
  direct_spam_chunk: { run: (ctx, a) => chunk(ctx, 'spam', a.cursor, null) },
  direct_pending_requests_preview: {
    run(ctx) {
      const pending = box(ctx, 'pending');
      return {
        pending_requests_total: pending.length,
        pending_requests_users: pending.slice(0, 3).flatMap((t) => t.users.filter((u) => u !== ctx.me().pk).map((u) => userShort(ctx.world.users.get(u)!))),
        status: 'ok',
      };
    },
  },
  direct_thread: { run: (ctx, a) => thread(ctx.world, findThread(ctx, a.thread_id), ctx.me().pk, int(a.amount)) },
  direct_messages: {
    run(ctx, a) {
      const t = findThread(ctx, a.thread_id);
      const ids_ = int(a.amount) > 0 ? t.messages.slice(-int(a.amount)) : t.messages;
      return ids_
        .slice()
        .reverse()
        .map((mid) => message(ctx.world, ctx.world.messages.get(mid)!, ctx.me().pk));
    },
  },
  direct_message: { run: (ctx, a) => message(ctx.world, findMessage(ctx, findThread(ctx, a.thread_id), a.message_id), ctx.me().pk) },
  direct_media: {
    run(ctx, a) {
      const t = findThread(ctx, a.thread_id);
      const shared = t.messages
        .map((mid) => ctx.world.messages.get(mid)!)
        .filter((m) => m.ref && (m.type === 'media_share' || m.type === 'clip'))
        .map((m) => m.ref!);
      return mediaList(ctx, take(shared.reverse(), int(a.amount)));
    },
  },
  direct_message_search: {
    run(ctx, a) {
      const q = str(a.query, 'query').toLowerCase();
      const me = ctx.me().pk;
      const out: unknown[] = [];
      for (const t of box(ctx, 'inbox')) {
        for (const mid of t.messages) {
          const m = ctx.world.messages.get(mid)!;
          if (m.text.toLowerCase().includes(q)) out.push([message(ctx.world, m, me), shortThread(ctx.world, t, me)]);
        }
      }
      return out.slice(0, 50);
    },
  },
  direct_search: {
    run(ctx, a) {
      const q = str(a.query, 'query').toLowerCase();
      const me = ctx.me();
      return [...me.following]
        .map((pk) => ctx.world.users.get(pk)!)
        .filter((u) => u.username.includes(q) || u.fullName.toLowerCase().includes(q))
        .slice(0, 20)
        .map(userShort);
    },
  },
  direct_search_gen_ai_bots: {
    run: (ctx, a) => take(ctx.world.aiBots, int(a.amount)).flatMap((pk) => (ctx.world.users.has(pk) ? [userShort(ctx.world.users.get(pk)!)] : [])),
  },
  direct_message_seen: {
    run(ctx, a) {
      const t = findThread(ctx, a.thread_id);
      findMessage(ctx, t, a.message_id).seenBy.add(ctx.me().pk);
      mine(ctx, t).unread = false;
      mine(ctx, t).lastSeen = id(a.message_id);
      return true;
    },
  },
  direct_send_seen: {
    run(ctx, a) {
      const t = findThread(ctx, a.thread_id);
      for (const mid of t.messages) ctx.world.messages.get(mid)!.seenBy.add(ctx.me().pk);
      mine(ctx, t).unread = false;
      mine(ctx, t).lastSeen = t.messages[t.messages.length - 1] ?? null;
      return true;
    },
  },
  direct_message_like: likeMessage(true),
  direct_message_unlike: likeMessage(false),
  direct_send_reaction: react(true),
  direct_delete_reaction: react(false),
  direct_message_unsend: {
    run(ctx, a) {
      const t = findThread(ctx, a.thread_id);
      const m = findMessage(ctx, t, a.message_id);
      if (m.user !== ctx.me().pk) fail('ClientForbiddenError', 'You can only unsend your own messages');
      ctx.world.messages.delete(m.id);
      t.messages.splice(t.messages.indexOf(m.id), 1);
      return true;
    },
  },
  direct_request_approve: {
    run(ctx, a) {
      const s = mine(ctx, findThread(ctx, a.thread_id));
      if (s.folder !== 'pending' && s.folder !== 'spam') fail('ClientBadRequestError', `Thread ${str(a.thread_id)} is not a pending request`);
      s.folder = 'inbox';
      return true;
    },
  },
  direct_thread_hide: {
    run(ctx, a) {
      mine(ctx, findThread(ctx, a.thread_id)).folder = bool(a.move_to_spam) ? 'spam' : 'hidden';
      return true;
    },
  },
  direct_thread_mark_unread: stateFlag('unread', true, false),
  direct_thread_mute: stateFlag('muted', true, true),
  direct_thread_unmute: stateFlag('muted', false, false),
  direct_thread_mute_video_call: stateFlag('vcMuted', true, true),
  direct_thread_unmute_video_call: stateFlag('vcMuted', false, false),
  direct_thread_update_title: {
    run(ctx, a) {
      const t = findThread(ctx, a.thread_id);
      if (!t.isGroup) fail('ClientBadRequestError', 'Only group threads have a title');
      t.title = str(a.title, 'title');
      return true;
    },
  },
  direct_thread_add_users: {
    run(ctx, a) {
      const t = findThread(ctx, a.thread_id);
      for (const pk of ids(a.user_ids)) {
        const u = findUser(ctx, pk);
        if (t.users.includes(u.pk)) continue;
        t.users.push(u.pk);
        t.state.set(u.pk, { folder: 'inbox', muted: false, vcMuted: false, unread: true, lastSeen: null });
      }
      t.isGroup = t.users.length > 2;
      return true;
    },
  },
  direct_thread_create: {
    run(ctx, a) {
      const users = ids(a.user_ids);
      const t =
        users.length > 1 || optStr(a.title)
          ? makeThread(ctx.world, null, [ctx.me().pk, ...users.map((u) => findUser(ctx, u).pk)], str(a.title), ctx.nowSec())
          : threadWith(ctx, users);
      return t.id;
    },
  },
  direct_thread_by_participants: {
    run(ctx, a) {
      const t = threadWith(ctx, ids(a.user_ids));
      return { thread: thread(ctx.world, t, ctx.me().pk), status: 'ok' };
    },
  },
  direct_active_presence: {
    run(ctx) {
      const me = ctx.me();
      const presence: Record<string, unknown> = {};
      for (const pk of [...me.following].slice(0, 30))
        presence[pk] = { is_active: Number(pk) % 3 === 0, last_activity_at_ms: (ctx.world.epoch - (Number(pk) % 7200)) * 1000, in_threads: [] };
      return { user_presence: presence, status: 'ok' };
    },
  },
  direct_users_presence: {
    run(ctx, a) {
      const presence: Record<string, unknown> = {};
      for (const pk of ids(a.user_ids))
        presence[findUser(ctx, pk).pk] = {
          is_active: Number(pk) % 3 === 0,
          last_activity_at_ms: (ctx.world.epoch - (Number(pk) % 7200)) * 1000,
          in_threads: [],
        };
      return { user_presence: presence, status: 'ok' };
    },
  },
  direct_channels: {
    run(ctx, a) {
      // The channels a user runs; thread_subtypes filters them (aiograpi asks for [29], broadcast channels).
      const owner = a.user_id === null || a.user_id === undefined || a.user_id === '' ? ctx.me() : findUser(ctx, a.user_id);
      const subtypes = a.thread_subtypes === null || a.thread_subtypes === undefined ? [29] : list(a.thread_subtypes).map((v) => int(v, 'thread_subtypes'));
      if (!subtypes.includes(29)) return [];
      return channelsOf(ctx.world, owner.pk).map((c) => channel(ctx.world, c, ctx.me().pk));
    },
  },
  direct_has_interop_upgraded: { run: () => false },
  direct_set_e2ee_eligibility: { run: (_ctx, a) => Number.isInteger(int(a.e2ee_eligibility)) },
};
