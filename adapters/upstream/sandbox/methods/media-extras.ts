// Notes left on posts and reels (media/create_note/v2, media/delete_note) and reel templates
// (clips/template): the notes show in the media_notes of raw media payloads.
import { id, int, str } from '../args.js';
import { fail, notFound } from '../errors.js';
import { findMedia } from '../lookup.js';
import { sortBy, take } from '../paging.js';
import { userShort } from '../records.js';
import { mediaNote, track } from '../records-direct.js';
import type { Ctx, MethodTable } from '../registry.js';
import { nextId } from '../world/social.js';
import type { MediaNoteRec, MediaRec } from '../world/types.js';
import { mediaOut, newestFirst, visible } from './common.js';

function createNote(ctx: Ctx, m: MediaRec, text: string, audience: number, style: number): MediaNoteRec {
  const me = ctx.me();
  // One note per account on a media: a new one replaces the old, as for inbox notes.
  for (const n of [...ctx.world.mediaNotes.values()]) if (n.media === m.pk && n.user === me.pk) ctx.world.mediaNotes.delete(n.id);
  const note: MediaNoteRec = { id: nextId(ctx.world), media: m.pk, user: me.pk, text, audience, style, createdAt: ctx.nowSec() };
  ctx.world.mediaNotes.set(note.id, note);
  return note;
}

function deleteNote(ctx: Ctx, value: unknown): boolean {
  const noteId = id(value, 'note_id');
  const note = ctx.world.mediaNotes.get(noteId) ?? notFound.note(noteId);
  const media = ctx.world.media.get(note.media);
  if (note.user !== ctx.me().pk && media?.owner !== ctx.me().pk) fail('ClientForbiddenError', 'You can only delete your own notes or notes on your media');
  return ctx.world.mediaNotes.delete(note.id);
}

/** A reel's cuts, derived from its pk so they stay the same on every read. */
function segments(m: MediaRec): { index: number; duration_ms: number }[] {
  const count = 2 + Number(BigInt(m.pk) % 4n);
  const total = Math.max(1, m.duration) * 1000;
  return Array.from({ length: count }, (_, index) => ({ index, duration_ms: Math.floor(total / count) + (index < total % count ? 1 : 0) }));
}

/** Other reels cut to the same audio, newest first: what "use template" lists beside the original. */
function sameAudio(ctx: Ctx, m: MediaRec): string[] {
  if (!m.track) return [];
  const pks = [...ctx.world.media.values()].filter((x) => x.kind === 'clip' && x.track === m.track && x.pk !== m.pk).map((x) => x.pk);
  return take(sortBy(visible(ctx, pks), newestFirst(ctx)), 12);
}

function template(ctx: Ctx, m: MediaRec): Record<string, unknown> {
  const base = { template_clips_media_id: `${m.pk}_${m.owner}`, paging_info: { max_id: '', more_available: false }, status: 'ok' };
  if (m.kind !== 'clip') return { ...base, template_info: null, items: [] };
  const t = m.track ? ctx.world.tracks.get(m.track) : undefined;
  const cuts = segments(m);
  const others = sameAudio(ctx, m);
  return {
    ...base,
    template_info: {
      original_media_id: m.pk,
      creator: userShort(ctx.world.users.get(m.owner)!),
      clip_count: cuts.length,
      segments: cuts,
      total_duration_ms: cuts.reduce((sum, c) => sum + c.duration_ms, 0),
      audio: t ? track(t) : null,
      template_uses_count: others.length,
    },
    items: others.map((pk) => ({ media: mediaOut(ctx, ctx.world.media.get(pk)!) })),
  };
}

export const mediaExtraMethods: MethodTable = {
  media_note_create: {
    run(ctx, a) {
      const note = createNote(ctx, findMedia(ctx, a.media_id), str(a.text, 'text'), int(a.audience), int(a.note_style));
      return { media_note: mediaNote(ctx.world, note), status: 'ok' };
    },
  },
  media_note_delete: { run: (ctx, a) => deleteNote(ctx, a.note_id) },
  media_template_v1: { run: (ctx, a) => template(ctx, findMedia(ctx, a.media_id)) },
};
