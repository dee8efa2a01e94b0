// Finding world objects by what callers pass (pks, "pk_owner" media ids, names), raising the
// upstream's not-found errors for ids the world does not have.
import { id } from './args.js';
import { fail, notFound } from './errors.js';
import type { Ctx } from './registry.js';
import type { CommentRec, HighlightRec, LocationRec, MediaRec, MessageRec, NoteRec, StoryRec, ThreadRec, TrackRec, UserRec } from './world/types.js';

export function findUser(ctx: Ctx, value: unknown): UserRec {
  const pk = id(value, 'user_id');
  return ctx.world.users.get(pk) ?? notFound.user(pk);
}

export function findUsername(ctx: Ctx, value: unknown): UserRec {
  const name = id(value, 'username').replace(/^@/, '').toLowerCase();
  const pk = ctx.world.byUsername.get(name);
  return pk ? ctx.world.users.get(pk)! : notFound.user(name);
}

/** A media pk, or a media id ("pk_ownerpk") as the upstream's media_id parameters take. */
export function findMedia(ctx: Ctx, value: unknown): MediaRec {
  const raw = id(value, 'media_id');
  const pk = raw.split('_')[0];
  if (!/^\d+$/.test(pk)) fail('InvalidMediaId', `Invalid media_id ${raw}`);
  return ctx.world.media.get(pk) ?? notFound.media(raw);
}

export function findStory(ctx: Ctx, value: unknown): StoryRec {
  const raw = id(value, 'story_pk');
  return ctx.world.stories.get(raw.split('_')[0]) ?? notFound.story(raw);
}

export function findComment(ctx: Ctx, value: unknown, media?: MediaRec): CommentRec {
  const pk = id(value, 'comment_pk');
  const found = ctx.world.comments.get(pk);
  if (!found || (media && found.media !== media.pk)) return notFound.comment(pk);
  return found;
}

export function findThread(ctx: Ctx, value: unknown): ThreadRec {
  const tid = id(value, 'thread_id');
  const found = ctx.world.threads.get(tid);
  if (!found?.state.has(ctx.me().pk)) return notFound.thread(tid);
  return found;
}

export function findMessage(ctx: Ctx, thread: ThreadRec, value: unknown): MessageRec {
  const mid = id(value, 'message_id');
  const found = ctx.world.messages.get(mid);
  return found && found.thread === thread.id ? found : notFound.message(mid);
}

export function findHighlight(ctx: Ctx, value: unknown): HighlightRec {
  const raw = id(value, 'highlight_pk').replace(/^highlight:/, '');
  return ctx.world.highlights.get(raw) ?? notFound.highlight(raw);
}

export function findLocation(ctx: Ctx, value: unknown): LocationRec {
  const pk = id(value, 'location_pk');
  return ctx.world.locations.get(pk) ?? notFound.location(pk);
}

export function findHashtag(ctx: Ctx, value: unknown): string {
  const name = id(value, 'name').replace(/^#/, '').toLowerCase();
  return ctx.world.hashtags.has(name) ? name : notFound.hashtag(name);
}

export function findNote(ctx: Ctx, value: unknown): NoteRec {
  const nid = id(value, 'note_id');
  return ctx.world.notes.get(nid) ?? notFound.note(nid);
}

export function findTrack(ctx: Ctx, value: unknown): TrackRec {
  const tid = id(value, 'track_id');
  return ctx.world.tracks.get(tid) ?? notFound.track(tid);
}

/** Private accounts show their lists only to followers (and themselves). */
export function assertVisible(ctx: Ctx, user: UserRec): void {
  const me = ctx.me();
  if (user.isPrivate && user.pk !== me.pk && !user.followers.has(me.pk))
    fail('PrivateAccount', 'This account is private', { message: 'Not authorized to view user', status: 'fail' });
}
