// Music (search, browse, trends, bookmarks, tracks) and inbox notes.
import { id, int, optStr, record, str } from '../args.js';
import { fail } from '../errors.js';
import { findNote, findTrack } from '../lookup.js';
import { musicConsumption } from '../records.js';
import { note, track } from '../records-direct.js';
import { pageBy } from '../paging.js';
import type { Ctx, MethodTable } from '../registry.js';
import { nextId } from '../world/social.js';
import type { NoteRec } from '../world/types.js';
import { mediaList, newestFirst, visible } from './common.js';
import { findTracks } from './search.js';

const allTracks = (ctx: Ctx) => [...ctx.world.tracks.values()];
const browser = (ctx: Ctx, offset: number) => ({
  items: allTracks(ctx)
    .slice(offset, offset + 12)
    .map((t) => ({ track: track(t) })),
  alacorn_session_id: 'sandbox',
  browse_session_id: 'sandbox',
  status: 'ok',
});

function tracksPayload(ctx: Ctx, query: string): Record<string, unknown> {
  return {
    items: findTracks(ctx, query.trim().toLowerCase())
      .slice(0, 20)
      .map((t) => ({ track: track(t) })),
    page_info: { more_available: false, next_max_id: null },
    status: 'ok',
  };
}

/** The audio page: the track, whether the viewer saved it, and the reels that use it, page by page. */
function trackPayload(ctx: Ctx, value: unknown, maxId: unknown): Record<string, unknown> {
  const t = findTrack(ctx, value);
  const clips = visible(
    ctx,
    [...ctx.world.media.values()].filter((m) => m.track === t.id).map((m) => m.pk),
  );
  const [page, next] = pageBy(clips, newestFirst(ctx), maxId, 12);
  return {
    metadata: { music_info: { music_asset_info: track(t), music_consumption_info: musicConsumption(t, ctx.me().pk) } },
    items: mediaList(ctx, page).map((media) => ({ media })),
    paging_info: { max_id: next, more_available: next !== '' },
    status: 'ok',
  };
}

function notesFor(ctx: Ctx): NoteRec[] {
  const me = ctx.me();
  return [...ctx.world.notes.values()].filter((n) => n.user === me.pk || me.following.has(n.user)).sort((a, b) => b.createdAt - a.createdAt);
}

function newNote(ctx: Ctx, text: string, audience: number, trackId: string | null): Record<string, unknown> {
  const me = ctx.me();
  for (const n of [...ctx.world.notes.values()]) if (n.user === me.pk) ctx.world.notes.delete(n.id); // one live note per account
  const n: NoteRec = { id: nextId(ctx.world), user: me.pk, text, audience, createdAt: ctx.nowSec(), style: 0, track: trackId, seenBy: new Set() };
  ctx.world.notes.set(n.id, n);
  return note(ctx.world, n);
}

export const musicMethods: MethodTable = {
  music_search_v2: { run: (ctx, a) => tracksPayload(ctx, str(a.query, 'query')) },
  music_keyword_search: {
    run: (ctx, a) => ({
      keywords: findTracks(ctx, str(a.query, 'query').toLowerCase())
        .slice(0, int(a.num_keywords) || 3)
        .map((t) => t.title),
      status: 'ok',
    }),
  },
  music_trending: { run: (ctx) => browser(ctx, 0) },
  music_top_trends: {
    run: (ctx, a) => ({
      ...browser(ctx, 12),
      items: allTracks(ctx)
        .slice(0, int(a.page_size) || 15)
        .map((t, rank) => ({ track: track(t), rank: rank + 1 })),
    }),
  },
  music_clips_audio_browser: { run: (ctx) => browser(ctx, 24) },
  music_in_feed_audio_browser: { run: (ctx) => browser(ctx, 36) },
  notes_music_browser: { run: (ctx) => browser(ctx, 6) },
  music_bookmark: {
    run(ctx, a) {
      const key = id(a.original_audio_id, 'original_audio_id');
      const t =
        ctx.world.tracks.get(key) ?? [...ctx.world.tracks.values()].find((x) => x.clusterId === key) ?? fail('TrackNotFound', `Audio not found: ${key}`);
      t.bookmarkedBy.add(ctx.me().pk);
      return true;
    },
  },
  music_verify_original_audio_title: {
    run: (ctx, a) => !allTracks(ctx).some((t) => t.title.toLowerCase() === str(a.original_audio_name).trim().toLowerCase()),
  },
  track_info_by_canonical_id: {
    run(ctx, a) {
      const key = id(a.music_canonical_id, 'music_canonical_id');
      const t = allTracks(ctx).find((x) => x.canonicalId === key || x.id === key);
      return t ? track(t) : fail('TrackNotFound', `Track not found: ${key}`);
    },
  },
  track_info_by_id: { run: (ctx, a) => trackPayload(ctx, a.track_id, a.max_id) },
  track_stream_info_by_id: { run: (ctx, a) => trackPayload(ctx, a.track_id, a.max_id) },
  get_notes: { run: (ctx) => notesFor(ctx).map((n) => note(ctx.world, n)) },
  get_note_by_user: { run: (_ctx, a) => notePick(a.notes, str(a.username, 'username')) },
  get_note_text_by_user: { run: (_ctx, a) => (notePick(a.notes, str(a.username, 'username')) as Record<string, unknown> | null)?.text ?? null },
  create_note: { run: (ctx, a) => newNote(ctx, str(a.text, 'text'), int(a.audience), null) },
  create_music_note: {
    run(ctx, a) {
      const t = record(a.track);
      const trackId = t?.id !== undefined ? findTrack(ctx, t.id).id : null;
      return newNote(ctx, optStr(a.text) ?? '', int(a.audience), trackId);
    },
  },
  delete_note: {
    run(ctx, a) {
      const n = findNote(ctx, a.note_id);
      if (n.user !== ctx.me().pk) fail('ClientForbiddenError', 'You can only delete your own note');
      return ctx.world.notes.delete(n.id);
    },
  },
  last_seen_update_note: {
    run(ctx) {
      for (const n of notesFor(ctx)) n.seenBy.add(ctx.me().pk);
      return true;
    },
  },
};

/** The upstream helpers pick from a notes list the caller already has. */
function notePick(notes: unknown, username: string): unknown {
  const list = Array.isArray(notes) ? (notes as Record<string, unknown>[]) : [];
  return list.find((n) => (n?.user as Record<string, unknown> | undefined)?.username === username) ?? null;
}
