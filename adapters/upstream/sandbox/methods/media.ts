// Media: info, codes and URLs, likes, saves, archive, pins, edits, and the reels feeds.
import { bool, id, ids, int, optStr, record, records, str } from '../args.js';
import { codeFromPk, codeFromUrl, pkFromCode, WEB } from '../codes.js';
import { fail } from '../errors.js';
import { mediaUrls } from '../files.js';
import { findMedia, findUser } from '../lookup.js';
import { after } from '../paging.js';
import { postsChanged, userShort } from '../records.js';
import type { Ctx, MethodDef, MethodTable } from '../registry.js';
import type { MediaRec } from '../world/types.js';
import { mediaOut, pushFront, rawMedia, remove, andReturn } from './common.js';

function like(ctx: Ctx, m: MediaRec, on: boolean): boolean {
  const me = ctx.me();
  if (on) {
    m.likers.add(me.pk);
    pushFront(me.liked, m.pk);
  } else {
    m.likers.delete(me.pk);
    remove(me.liked, m.pk);
  }
  return true;
}

function save(ctx: Ctx, m: MediaRec, collectionPk: unknown, on: boolean): boolean {
  const me = ctx.me();
  const targets = collectionPk === null || collectionPk === undefined || collectionPk === '' ? [] : [id(collectionPk, 'collection_pk')];
  for (const pk of targets) {
    const c = ctx.world.collections.get(pk);
    if (!c || c.owner !== me.pk) fail('CollectionNotFound', `Collection not found: ${pk}`);
    if (on) pushFront(c!.media, m.pk);
    else remove(c!.media, m.pk);
  }
  if (on) pushFront(me.saved, m.pk);
  else if (targets.length === 0) {
    remove(me.saved, m.pk);
    for (const c of me.collections) remove(ctx.world.collections.get(c)!.media, m.pk);
  }
  return true;
}

function own(ctx: Ctx, value: unknown): MediaRec {
  const m = findMedia(ctx, value);
  if (m.owner !== ctx.me().pk) fail('ClientForbiddenError', 'You can only change your own media');
  return m;
}

/** Profile-grid pin and reels-tab pin; aiograpi answers status == "ok" for both. */
function pin(on: boolean, revertable: boolean, field: 'pinned' | 'clipPinned'): MethodDef {
  const list = field === 'pinned' ? 'pinned' : 'pinnedClips';
  return {
    run(ctx, a) {
      const m = own(ctx, a.media_pk);
      const enable = revertable && bool(a.revert) ? !on : on;
      m[field] = enable;
      const me = ctx.me();
      remove(me[list], m.pk);
      if (enable) me[list].unshift(m.pk);
      return true;
    },
  };
}

function reelsAfter(ctx: Ctx, filter: (m: MediaRec) => boolean, amount: unknown, last: unknown): MediaRec[] {
  const items = [...ctx.world.media.values()].filter((m) => m.kind === 'clip' && !m.archived && filter(m)).sort((a, b) => b.takenAt - a.takenAt);
  return after(items, last, int(amount) || 10);
}

const feed = (ctx: Ctx, filter: (m: MediaRec) => boolean, amount: unknown, last: unknown) => reelsAfter(ctx, filter, amount, last).map((m) => mediaOut(ctx, m));

export const mediaMethods: MethodTable = {
  media_info: { run: (ctx, a) => mediaOut(ctx, findMedia(ctx, a.media_pk)) },
  media_user: { run: (ctx, a) => userShort(ctx.world.users.get(findMedia(ctx, a.media_pk).owner)!) },
  media_pk: { open: true, local: true, run: (_ctx, a) => str(a.media_id, 'media_id').split('_')[0] },
  media_pk_from_code: { open: true, local: true, run: (_ctx, a) => pkFromCode(str(a.code, 'code')) },
  media_pk_from_url: { open: true, local: true, run: (_ctx, a) => pkFromCode(codeFromUrl(str(a.url, 'url'))) },
  media_oembed: {
    run(ctx, a) {
      const m = findMedia(ctx, pkFromCode(codeFromUrl(str(a.url, 'url'))));
      const owner = ctx.world.users.get(m.owner)!;
      return {
        title: m.caption,
        author_name: owner.username,
        author_url: `${WEB}/${owner.username}`,
        author_id: owner.pk,
        media_id: `${m.pk}_${m.owner}`,
        provider_name: 'Instagram',
        provider_url: WEB,
        type: 'rich',
        width: 658,
        height: null,
        html: `<blockquote class="instagram-media" data-instgrm-permalink="${WEB}/p/${codeFromPk(m.pk)}/"></blockquote>`,
        thumbnail_url: mediaUrls.image(m.pk),
        thumbnail_width: 64,
        thumbnail_height: 64,
        can_view: true,
      };
    },
  },
  media_like: { run: (ctx, a) => like(ctx, findMedia(ctx, a.media_id), !bool(a.revert)) },
  media_unlike: { run: (ctx, a) => like(ctx, findMedia(ctx, a.media_id), false) },
  media_likers: {
    run(ctx, a) {
      const m = findMedia(ctx, a.media_id);
      return [...m.likers].flatMap((pk) => (ctx.world.users.has(pk) ? [userShort(ctx.world.users.get(pk)!)] : []));
    },
  },
  media_delete: {
    run(ctx, a) {
      const m = own(ctx, a.media_id);
      deleteMedia(ctx, m);
      return true;
    },
  },
  media_edit: {
    run(ctx, a) {
      const m = own(ctx, a.media_id);
      m.caption = str(a.caption, 'caption');
      if (optStr(a.title)) m.title = str(a.title);
      const tags = records(a.usertags);
      if (tags.length) m.usertags = tags.map((t) => ({ user: findUser(ctx, record(t.user)?.pk).pk, x: Number(t.x ?? 0.5), y: Number(t.y ?? 0.5) }));
      const loc = record(a.location);
      if (loc?.pk !== undefined && ctx.world.locations.has(String(loc.pk))) m.location = String(loc.pk);
      return { media: mediaOut(ctx, m), status: 'ok' };
    },
  },
  media_archive: { run: (ctx, a) => andReturn(archive(ctx, own(ctx, a.media_id), !bool(a.revert)), true) },
  media_unarchive: { run: (ctx, a) => andReturn(archive(ctx, own(ctx, a.media_id), false), true) },
  media_pin: pin(true, true, 'pinned'),
  media_unpin: pin(false, false, 'pinned'),
  clip_pin: pin(true, true, 'clipPinned'),
  clip_unpin: pin(false, false, 'clipPinned'),
  media_save: { run: (ctx, a) => save(ctx, findMedia(ctx, a.media_id), a.collection_pk, !bool(a.revert)) },
  media_unsave: { run: (ctx, a) => save(ctx, findMedia(ctx, a.media_id), a.collection_pk, false) },
  media_seen: {
    run: (ctx, a) =>
      andReturn(
        ids(a.media_ids).map((pk) => findMedia(ctx, pk)),
        true,
      ),
  },
  media_check_offensive_comment: { run: (ctx, a) => andReturn(findMedia(ctx, a.media_id), /\b(idiot|stupid|hate)\b/i.test(str(a.text, 'text'))) },
  clip_info_for_creation: { run: () => ({ clips_max_duration_ms: 90000, clips_min_duration_ms: 1000, is_trial_eligible: true, status: 'ok' }) },
  clip_share_to_fb_config: { run: () => ({ share_to_fb_enabled: false, fb_destinations: [], status: 'ok' }) },
  clip_trial_eligible: { run: () => true },
  explore_page: {
    run: (ctx) => ({
      sectional_items: [
        { layout_type: 'one_by_two_left', layout_content: { medias: reelsAfter(ctx, () => true, 6, 0).map((m) => ({ media: rawMedia(ctx, m) })) } },
      ],
      more_available: false,
      next_max_id: '',
      status: 'ok',
    }),
  },
  explore_page_media_info: { run: (ctx, a) => ({ items: [rawMedia(ctx, findMedia(ctx, a.media_pk))], status: 'ok' }) },
  reels: { run: (ctx, a) => feed(ctx, () => true, a.amount, a.last_media_pk) },
  friends_reels: { run: (ctx, a) => feed(ctx, (m) => ctx.me().following.has(m.owner), a.amount, a.last_media_pk) },
  explore_reels: { run: (ctx, a) => feed(ctx, (m) => !ctx.me().following.has(m.owner) && m.owner !== ctx.me().pk, a.amount, a.last_media_pk) },
  reels_timeline_media: {
    run(ctx, a) {
      const kind = str(a.collection_pk, 'collection_pk');
      const mine = (m: MediaRec) => (kind === 'clips_tab' || kind === 'reels' ? true : ctx.me().following.has(m.owner));
      return feed(ctx, mine, a.amount, a.last_media_pk);
    },
  },
  liked_medias: {
    run(ctx, a) {
      const me = ctx.me();
      const liked = me.liked.map((pk) => ctx.world.media.get(pk)).filter((m): m is MediaRec => Boolean(m));
      return after(liked, a.last_media_pk, int(a.amount)).map((m) => mediaOut(ctx, m));
    },
  },
};

function archive(ctx: Ctx, m: MediaRec, archived: boolean): boolean {
  m.archived = archived;
  postsChanged(ctx.world);
  return archived;
}

export function deleteMedia(ctx: Ctx, m: MediaRec): void {
  const w = ctx.world;
  w.media.delete(m.pk);
  postsChanged(w);
  const owner = w.users.get(m.owner)!;
  remove(owner.media, m.pk);
  remove(owner.pinned, m.pk);
  remove(owner.pinnedClips, m.pk);
  for (const pk of m.comments) {
    for (const reply of w.comments.get(pk)?.replies ?? []) w.comments.delete(reply);
    w.comments.delete(pk);
  }
  for (const tag of m.hashtags) remove(w.hashtags.get(tag)?.media ?? [], m.pk);
  if (m.location) remove(w.locations.get(m.location)?.media ?? [], m.pk);
  for (const t of m.usertags) remove(w.users.get(t.user)?.tagged ?? [], m.pk);
  for (const note of [...w.mediaNotes.values()]) if (note.media === m.pk) w.mediaNotes.delete(note.id);
}
