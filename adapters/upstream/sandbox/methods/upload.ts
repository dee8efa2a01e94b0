// Uploads: read the file at `path` and create the media in the world, so it shows up in the
// author's posts, reels, stories, tags, hashtags and places like generated media.
import { list, num, record, records, str } from '../args.js';
import { fail } from '../errors.js';
import { findTrack, findUser } from '../lookup.js';
import { postsChanged, story } from '../records.js';
import type { Args, Ctx, MethodDef, MethodTable } from '../registry.js';
import { indexMedia } from '../world/media.js';
import { nextId } from '../world/social.js';
import type { MediaKind, MediaRec, StoryRec } from '../world/types.js';
import { mediaOut, uploadFile } from './common.js';

const EXC: Readonly<Record<MediaKind, string>> = {
  photo: 'PhotoNotUpload',
  video: 'VideoNotUpload',
  album: 'AlbumConfigureError',
  clip: 'ClipNotUpload',
  igtv: 'IGTVNotUpload',
};

function usertags(ctx: Ctx, value: unknown): MediaRec['usertags'] {
  return records(value).map((tag) => {
    const user = record(tag.user) ?? {};
    const found = user.pk !== undefined ? findUser(ctx, user.pk) : findUser(ctx, ctx.world.byUsername.get(String(user.username ?? '')) ?? '');
    return { user: found.pk, x: num(tag.x ?? 0.5, 'x'), y: num(tag.y ?? 0.5, 'y') };
  });
}

/** A Location dict: a world place by pk, or a new place from its fields. */
function placeOf(ctx: Ctx, value: unknown): string | null {
  const loc = record(value);
  if (!loc) return null;
  const pk = loc.pk !== undefined && loc.pk !== null ? String(loc.pk) : '';
  if (pk && ctx.world.locations.has(pk)) return pk;
  if (!loc.name) fail('ClientBadRequestError', 'location needs a pk from the sandbox or a name');
  const created = pk || nextId(ctx.world);
  ctx.world.locations.set(created, {
    pk: created,
    name: str(loc.name),
    address: str(loc.address ?? ''),
    city: str(loc.city ?? ''),
    zip: str(loc.zip ?? ''),
    lat: Number(loc.lat ?? 0),
    lng: Number(loc.lng ?? 0),
    category: str(loc.category ?? ''),
    phone: '',
    website: '',
    media: [],
  });
  return created;
}

function create(ctx: Ctx, kind: MediaKind, a: Args, paths: string[], videoFlags: boolean[], track: string | null): Record<string, unknown> {
  const me = ctx.me();
  const caption = str(a.caption ?? '', 'caption');
  const m: MediaRec = {
    pk: nextId(ctx.world),
    owner: me.pk,
    kind,
    takenAt: ctx.nowSec(),
    caption,
    title: kind === 'igtv' ? str(a.title ?? '') : '',
    usertags: usertags(ctx, a.usertags),
    location: placeOf(ctx, a.location),
    likers: new Set(),
    comments: [],
    commentsDisabled: false,
    archived: false,
    pinned: false,
    clipPinned: false,
    duration: kind === 'photo' || kind === 'album' ? 0 : 1,
    plays: 0,
    children: kind === 'album' ? paths.map((_, i) => ({ pk: nextId(ctx.world), video: videoFlags[i] })) : [],
    hashtags: [...new Set([...caption.matchAll(/#([\p{L}\p{N}_]+)/gu)].map((x) => x[1].toLowerCase()))],
    track,
  };
  ctx.world.media.set(m.pk, m);
  me.media.unshift(m.pk);
  postsChanged(ctx.world);
  indexMedia(ctx.world, m);
  return mediaOut(ctx, m);
}

function single(kind: MediaKind, withTrack: boolean): MethodDef {
  return {
    run(ctx, a) {
      const path = uploadFile(a.path, EXC[kind]);
      const track = withTrack ? findTrack(ctx, record(a.track)?.id).id : null;
      return create(ctx, kind, a, [path], [kind !== 'photo'], track);
    },
  };
}

function album(withTrack: boolean): MethodDef {
  return {
    run(ctx, a) {
      const paths = list(a.paths).map((p) => uploadFile(p, 'AlbumConfigureError'));
      if (paths.length < 2 || paths.length > 10) fail('AlbumConfigureError', 'An album needs 2 to 10 files');
      const track = withTrack ? findTrack(ctx, record(a.track)?.id).id : null;
      return create(
        ctx,
        'album',
        a,
        paths,
        paths.map((p) => /\.(mp4|mov|m4v)$/i.test(p)),
        track,
      );
    },
  };
}

/** A story upload; the music variants of 1.12 take a track as well (methods/newer.ts). */
export function toStory(video: boolean): MethodDef {
  return {
    run(ctx, a) {
      uploadFile(a.path, video ? 'VideoNotUpload' : 'PhotoNotUpload');
      const me = ctx.me();
      const s: StoryRec = {
        pk: nextId(ctx.world),
        owner: me.pk,
        takenAt: ctx.nowSec(),
        video,
        caption: str(a.caption ?? ''),
        mentions: records(a.mentions).map((m) => findUser(ctx, record(m.user)?.pk).pk),
        hashtags: records(a.hashtags)
          .map((h) => String(record(h.hashtag)?.name ?? '').toLowerCase())
          .filter((n) => ctx.world.hashtags.has(n)),
        locations: records(a.locations).flatMap((l) => {
          const pk = placeOf(ctx, l.location);
          return pk ? [pk] : [];
        }),
        links: records(a.links)
          .map((l) => str(l.webUri ?? l.url ?? ''))
          .filter(Boolean),
        likers: new Set(),
        viewers: [],
      };
      ctx.world.stories.set(s.pk, s);
      me.stories.push(s.pk);
      return story(ctx.world, s);
    },
  };
}

export const uploadMethods: MethodTable = {
  photo_upload: single('photo', false),
  video_upload: single('video', false),
  igtv_upload: single('igtv', false),
  clip_upload: single('clip', false),
  album_upload: album(false),
  photo_upload_with_music: single('photo', true),
  clip_upload_with_music: single('clip', true),
  album_upload_with_music: album(true),
  photo_upload_to_story: toStory(false),
  video_upload_to_story: toStory(true),
};
