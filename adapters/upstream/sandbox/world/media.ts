// Places, tags, music and posts: every kind of media with captions, usertags, locations, likers,
// comments and replies. demo gets enough of everything for paging to matter.
import type { Rng } from '../prng.js';
import type { CommentRec, MediaKind, MediaRec, World } from './types.js';
import { fitBefore } from './time.js';
import { FIXED } from './users.js';
import { ARTISTS, CITIES, COMMENTS, PHRASES, PLACE_NAMES, PLACES, SONGS, TOPICS } from './words.js';

const KINDS: readonly MediaKind[] = ['photo', 'photo', 'photo', 'video', 'album', 'clip', 'clip', 'igtv'];

export function generatePlaces(world: World, rng: Rng): void {
  for (const name of TOPICS) world.hashtags.set(name, { id: rng.digits(17), name, media: [] });
  for (let i = 0; i < 40; i++) {
    const [city, , lat, lng] = CITIES[i % CITIES.length];
    const kind = rng.pick(PLACES);
    const pk = rng.digits(9);
    world.locations.set(pk, {
      pk,
      name: `${rng.pick(PLACE_NAMES)} ${kind} ${city}`,
      address: `${rng.int(1, 200)} ${rng.pick(PLACE_NAMES)} Street`,
      city,
      zip: String(rng.int(10000, 99999)),
      lat: round(lat + (rng.next() - 0.5) / 20),
      lng: round(lng + (rng.next() - 0.5) / 20),
      category: kind,
      phone: `+1555${rng.digits(7)}`,
      website: `https://example.com/place/${pk}`,
      media: [],
    });
  }
  for (let i = 0; i < 48; i++) {
    const id = rng.digits(16);
    world.tracks.set(id, {
      id,
      title: `${SONGS[i % SONGS.length]}${i >= SONGS.length ? ` (${['Remix', 'Live', 'Acoustic', 'Edit'][Math.floor(i / SONGS.length) % 4]})` : ''}`,
      artist: rng.pick(ARTISTS),
      artistId: rng.digits(15),
      clusterId: rng.digits(16),
      canonicalId: rng.digits(17),
      durationMs: rng.int(90, 240) * 1000,
      explicit: rng.chance(0.1),
      bookmarkedBy: new Set(),
    });
  }
}

export function generateMedia(world: World, rng: Rng): void {
  const users = [...world.users.values()];
  const pks = users.map((u) => u.pk);
  const locations = [...world.locations.keys()];
  const tracks = [...world.tracks.keys()];
  for (const user of users) {
    const count = user.pk === FIXED.demo ? 48 : user.pk in REVERSE_FIXED ? 6 : rng.int(0, 10);
    let at = world.epoch - rng.int(1, 24) * 3600;
    for (let i = 0; i < count; i++) {
      const kind = user.pk === FIXED.demo ? KINDS[i % KINDS.length] : rng.pick(KINDS);
      const media = makeMedia(world, rng, user.pk, kind, at, { pks, locations, tracks });
      user.media.push(media.pk);
      at -= rng.int(2, 96) * 3600;
    }
  }
  const demo = world.users.get(FIXED.demo)!;
  demo.pinned = [demo.media[3], demo.media[7]];
  for (const pk of demo.pinned) world.media.get(pk)!.pinned = true;
  for (const pk of demo.media.slice(40, 43)) world.media.get(pk)!.archived = true;
  const clip = demo.media.find((pk) => world.media.get(pk)!.kind === 'clip')!;
  world.media.get(clip)!.clipPinned = true;
  demo.pinnedClips = [clip];
  tagDemo(world, rng);
  sortIndexes(world);
}

interface Pools {
  pks: string[];
  locations: string[];
  tracks: string[];
}

function makeMedia(world: World, rng: Rng, owner: string, kind: MediaKind, takenAt: number, pools: Pools): MediaRec {
  const pk = `3${rng.digits(18)}`;
  const tags = rng.sample(TOPICS, rng.int(0, 3));
  if (owner === FIXED.demo && !tags.includes('sandbox')) tags.push('sandbox');
  const media: MediaRec = {
    pk,
    owner,
    kind,
    takenAt,
    caption: `${rng.pick(PHRASES)}${tags.map((t) => ` #${t}`).join('')}`,
    title: kind === 'igtv' ? `${rng.pick(PHRASES)} (long video)` : '',
    usertags: rng
      .sample(pools.pks, rng.int(0, 2))
      .filter((u) => u !== owner)
      .map((user) => ({ user, x: round(rng.next()), y: round(rng.next()) })),
    location: rng.chance(0.5) ? rng.pick(pools.locations) : null,
    likers: new Set(rng.sample(pools.pks, rng.int(0, 40)).filter((u) => u !== owner)),
    comments: [],
    commentsDisabled: false,
    archived: false,
    pinned: false,
    clipPinned: false,
    duration: kind === 'igtv' ? rng.int(70, 600) : kind === 'video' || kind === 'clip' ? rng.int(5, 59) : 0,
    plays: kind === 'clip' ? rng.int(100, 100000) : 0,
    children: kind === 'album' ? Array.from({ length: rng.int(2, 4) }, (_, i) => ({ pk: `3${rng.digits(18)}`, video: i === 1 && rng.chance(0.5) })) : [],
    hashtags: tags,
    track: kind === 'clip' ? rng.pick(pools.tracks) : null,
  };
  world.media.set(pk, media);
  indexMedia(world, media);
  for (const u of media.likers) world.users.get(u)!.liked.push(pk);
  makeComments(world, rng, media, owner === FIXED.demo && world.users.get(owner)!.media.length === 0 ? 60 : rng.int(0, 8), pools.pks);
  return media;
}

/** Tags, place and usertags make a media findable; new uploads go through here too. */
export function indexMedia(world: World, media: MediaRec): void {
  for (const tag of media.hashtags) {
    let rec = world.hashtags.get(tag);
    if (!rec) {
      rec = { id: String(9e16 + world.hashtags.size), name: tag, media: [] };
      world.hashtags.set(tag, rec);
    }
    rec.media.unshift(media.pk);
  }
  if (media.location) world.locations.get(media.location)?.media.unshift(media.pk);
  for (const tag of media.usertags) world.users.get(tag.user)?.tagged.unshift(media.pk);
}

function makeComments(world: World, rng: Rng, media: MediaRec, count: number, pks: string[]): void {
  let at = media.takenAt + 60;
  for (let i = 0; i < count; i++) {
    at += rng.int(30, 7200);
    const comment = makeComment(world, rng, media.pk, rng.pick(pks), at, null, pks);
    media.comments.push(comment.pk);
    if (rng.chance(0.25)) {
      const reply = makeComment(world, rng, media.pk, rng.pick(pks), at + rng.int(10, 600), comment.pk, pks);
      comment.replies.push(reply.pk);
    }
  }
  if (media.comments.length > 2 && rng.chance(0.2)) world.comments.get(media.comments[0])!.pinned = true;
  const all = media.comments.flatMap((pk) => [pk, ...world.comments.get(pk)!.replies]).map((pk) => world.comments.get(pk)!);
  fitBefore(
    all,
    (c) => c.createdAt,
    (c, at) => {
      c.createdAt = at;
    },
    media.takenAt,
    world.epoch,
  );
}

function makeComment(world: World, rng: Rng, media: string, user: string, at: number, parent: string | null, pks: string[]): CommentRec {
  const comment: CommentRec = {
    pk: `17${rng.digits(16)}`,
    media,
    user,
    text: rng.pick(COMMENTS),
    createdAt: at,
    repliedTo: parent,
    replies: [],
    likers: new Set(rng.sample(pks, rng.int(0, 5))),
    pinned: false,
  };
  world.comments.set(comment.pk, comment);
  return comment;
}

/** demo is tagged in enough posts for the tagged list to page. */
function tagDemo(world: World, rng: Rng): void {
  const others = [...world.media.values()].filter((m) => m.owner !== FIXED.demo);
  for (const media of rng.sample(others, 30)) {
    if (media.usertags.some((t) => t.user === FIXED.demo)) continue;
    media.usertags.push({ user: FIXED.demo, x: round(rng.next()), y: round(rng.next()) });
    world.users.get(FIXED.demo)!.tagged.push(media.pk);
  }
}

function sortIndexes(world: World): void {
  const newest = (a: string, b: string) => world.media.get(b)!.takenAt - world.media.get(a)!.takenAt;
  for (const tag of world.hashtags.values()) tag.media.sort(newest);
  for (const loc of world.locations.values()) loc.media.sort(newest);
  for (const user of world.users.values()) user.tagged.sort(newest);
}

const REVERSE_FIXED: Record<string, true> = Object.fromEntries(Object.values(FIXED).map((pk) => [pk, true]));
const round = (n: number) => Math.round(n * 1e4) / 1e4;
