// Livestreams: created → started → ended. Once started, the owner's followers join as viewers and
// comment as the broadcast's time passes, so its comments and viewers are there to read.
import { id, str } from '../args.js';
import { fail } from '../errors.js';
import { userShort } from '../records.js';
import type { Ctx, MethodDef, MethodTable } from '../registry.js';
import { nextId } from '../world/social.js';
import type { LiveRec } from '../world/types.js';
import { LIVE_COMMENTS } from '../world/words.js';

/** The audience: the owner's first followers, as many as watch a small live. */
const AUDIENCE = 12;
/** Comments on joining (one per early viewer), then one every this many seconds of live time. */
const GREETINGS = 3;
const SECONDS_PER_COMMENT = 10;
const MAX_COMMENTS = 300;

function findLive(ctx: Ctx, value: unknown): LiveRec {
  const bid = id(value, 'broadcast_id');
  const live = ctx.world.lives.get(bid);
  if (!live || live.owner !== ctx.me().pk) fail('ClientNotFoundError', `Broadcast not found: ${bid}`);
  return live!;
}

/** How many comments the audience has written by now (none before the start, frozen at the end). */
function commentsDue(live: LiveRec, now: number): number {
  if (live.startedAt === null || !live.viewers.length) return 0;
  const until = live.endedAt ?? now;
  return Math.min(MAX_COMMENTS, GREETINGS + Math.floor(Math.max(0, until - live.startedAt) / SECONDS_PER_COMMENT));
}

/** Writes out the comments due since the last read; pks are assigned once and kept. */
function catchUp(ctx: Ctx, live: LiveRec): void {
  const due = commentsDue(live, ctx.nowSec());
  for (let k = live.comments.length; k < due; k++) {
    const at = live.startedAt! + (k < GREETINGS ? 0 : (k - GREETINGS + 1) * SECONDS_PER_COMMENT);
    live.comments.push({ pk: nextId(ctx.world), user: live.viewers[k % live.viewers.length], text: LIVE_COMMENTS[k % LIVE_COMMENTS.length], at });
  }
}

function start(ctx: Ctx, live: LiveRec): void {
  live.startedAt = ctx.nowSec();
  live.viewers = [...ctx.world.users.get(live.owner)!.followers].slice(0, AUDIENCE);
}

/** created → started → ended; any other move is refused naming the state. */
function move(from: LiveRec['state'], to: LiveRec['state']): MethodDef {
  return {
    run(ctx, a) {
      const live = findLive(ctx, a.broadcast_id);
      if (live.state !== from) fail('ClientBadRequestError', `Cannot move broadcast ${live.id} from state '${live.state}' to '${to}': it must be '${from}'`);
      if (to === 'started') start(ctx, live);
      else {
        catchUp(ctx, live);
        live.endedAt = ctx.nowSec();
      }
      live.state = to;
      return true;
    },
  };
}

function commentOut(ctx: Ctx, c: LiveRec['comments'][number]): Record<string, unknown> {
  const user = ctx.world.users.get(c.user);
  return {
    pk: c.pk,
    user_id: c.user,
    text: c.text,
    type: 0,
    created_at: c.at,
    created_at_utc: c.at,
    content_type: 'comment',
    status: 'Active',
    bit_flags: 0,
    did_report_as_spam: false,
    share_enabled: false,
    user: user ? userShort(user) : { pk: c.user },
  };
}

export const liveMethods: MethodTable = {
  media_create_livestream: {
    run(ctx, a) {
      const live: LiveRec = {
        id: nextId(ctx.world),
        owner: ctx.me().pk,
        title: str(a.title, 'title'),
        state: 'created',
        createdAt: ctx.nowSec(),
        startedAt: null,
        endedAt: null,
        comments: [],
        viewers: [],
      };
      ctx.world.lives.set(live.id, live);
      return {
        broadcast_id: live.id,
        upload_url: `rtmps://live-upload.sandbox.invalid:443/rtmp/${live.id}?s_bl=1&s_sw=0&s_vt=ig&a=sandbox`,
        stream_server: 'rtmps://live-upload.sandbox.invalid:443/rtmp/',
        stream_key: `${live.id}?s_bl=1&s_sw=0&s_vt=ig&a=sandbox`,
        broadcast_status: live.state,
        title: live.title,
        status: 'ok',
      };
    },
  },
  media_start_livestream: move('created', 'started'),
  media_end_livestream: move('started', 'ended'),
  media_get_livestream_info: {
    run(ctx, a) {
      const live = findLive(ctx, a.broadcast_id);
      return {
        id: live.id,
        broadcast_status: live.state,
        title: live.title,
        published_time: live.startedAt ?? live.createdAt,
        viewer_count: live.state === 'started' ? live.viewers.length : 0,
        broadcast_owner: userShort(ctx.me()),
        status: 'ok',
      };
    },
  },
  media_get_livestream_comments: {
    run(ctx, a) {
      const live = findLive(ctx, a.broadcast_id);
      catchUp(ctx, live);
      return {
        comments: live.comments.map((c) => commentOut(ctx, c)),
        comment_count: live.comments.length,
        caption: null,
        caption_is_edited: false,
        has_more_comments: false,
        is_first_fetch: true,
        live_seconds_per_comment: SECONDS_PER_COMMENT,
        comment_likes_enabled: true,
        comment_muted: 0,
        status: 'ok',
      };
    },
  },
  media_get_livestream_viewers: {
    run(ctx, a) {
      const live = findLive(ctx, a.broadcast_id);
      const viewers = live.state === 'started' ? live.viewers : [];
      return { users: viewers.flatMap((pk) => (ctx.world.users.has(pk) ? [userShort(ctx.world.users.get(pk)!)] : [])), status: 'ok' };
    },
  },
};
