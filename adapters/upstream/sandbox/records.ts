// Response records in the upstream's shapes (aiograpi.types field names), built fresh on each call
// from the stored world records: cheap, and safe for callers to mutate.
import { codeFromPk } from './codes.js';
import { mediaUrls } from './files.js';
import type { ChannelRec, CommentRec, HighlightRec, LocationRec, MediaRec, StoryRec, TrackRec, UserRec, World } from './world/types.js';

export type Rec = Record<string, unknown>;
export const iso = (sec: number): string => new Date(sec * 1000).toISOString();

export function picUrl(user: UserRec): string {
  return mediaUrls.image(`u${user.pk}v${user.picVersion}`);
}

export function userShort(user: UserRec): Rec {
  const pic = picUrl(user);
  return {
    pk: user.pk,
    username: user.username,
    full_name: user.fullName,
    profile_pic_url: pic,
    profile_pic_url_hd: pic,
    is_private: user.isPrivate,
    stories: [],
  };
}

/** The media of `pks` anyone may see: archived posts show only in their owner's archive. */
export function shownMedia(world: World, pks: readonly string[]): string[] {
  return pks.filter((pk) => world.media.get(pk)?.archived === false);
}

/** Each world's revision of its posts: a post added, deleted, archived or unarchived moves it (postsChanged). */
const postRevisions = new WeakMap<World, number>();
/** Each user's count of shown posts, with the revision and list length it was counted at. */
const postCounts = new WeakMap<UserRec, { readonly revision: number; readonly length: number; readonly count: number }>();

/** Called by whatever changes which posts a profile shows, after the world is made. */
export function postsChanged(world: World): void {
  postRevisions.set(world, (postRevisions.get(world) ?? 0) + 1);
}

/**
 * Posts on the profile, as its grid shows them. Every user_info asks, so the count is kept until
 * the world's posts change (a post added or removed changes the list's length too, which is checked
 * as well: the world's own making adds posts without a revision).
 */
export function postCount(world: World, user: UserRec): number {
  const revision = postRevisions.get(world) ?? 0;
  const held = postCounts.get(user);
  if (held && held.revision === revision && held.length === user.media.length) return held.count;
  let count = 0;
  for (const pk of user.media) if (world.media.get(pk)?.archived === false) count++;
  postCounts.set(user, { revision, length: user.media.length, count });
  return count;
}

/** A broadcast channel as User.broadcast_channel and direct_channels show it. */
export function channel(world: World, c: ChannelRec, viewer: string | null): Rec {
  const owner = world.users.get(c.owner);
  return {
    title: c.title,
    thread_igid: c.id,
    subtitle: c.subtitle,
    invite_link: `https://ig.me/j/${codeFromPk(c.id)}/`,
    is_member: viewer !== null && c.members.has(viewer),
    group_image_uri: mediaUrls.image(`c${c.id}`),
    group_image_background_uri: mediaUrls.image(`c${c.id}b`),
    thread_subtype: 29,
    number_of_members: c.members.size,
    creator_igid: c.owner,
    creator_username: owner?.username ?? '',
  };
}

/** The broadcast channels a user runs. */
export function channelsOf(world: World, owner: string): ChannelRec[] {
  const owned: ChannelRec[] = [];
  for (const c of world.channels.values()) if (c.owner === owner) owned.push(c);
  return owned;
}

export function userFull(world: World, user: UserRec, viewer: string | null = null): Rec {
  const pic = picUrl(user);
  const business = user.isBusiness;
  const channels = channelsOf(world, user.pk);
  return {
    pk: user.pk,
    username: user.username,
    full_name: user.fullName,
    is_private: user.isPrivate,
    profile_pic_url: pic,
    profile_pic_url_hd: pic,
    is_verified: user.isVerified,
    media_count: postCount(world, user),
    follower_count: user.followers.size,
    following_count: user.following.size,
    biography: user.biography,
    bio_links: user.bioLinks.map((l) => ({
      link_id: l.link_id,
      url: l.url,
      lynx_url: null,
      link_type: 'external',
      title: l.title,
      is_pinned: false,
      open_external_url_with_in_app_browser: true,
    })),
    external_url: user.externalUrl,
    account_type: business ? 2 : 1,
    is_business: business,
    broadcast_channel: channels.map((c) => channel(world, c, viewer)),
    public_email: business ? user.email : null,
    contact_phone_number: business ? user.phone || null : null,
    public_phone_country_code: business ? '1' : null,
    public_phone_number: business ? user.phone || null : null,
    business_contact_method: business ? 'CALL' : null,
    business_category_name: user.category,
    category_name: user.category,
    category: user.category,
    address_street: null,
    city_id: null,
    city_name: business ? user.city : null,
    latitude: null,
    longitude: null,
    zip: null,
    instagram_location_id: null,
    interop_messaging_user_fbid: `1${user.pk}`,
  };
}

export function account(user: UserRec): Rec {
  return {
    pk: user.pk,
    username: user.username,
    full_name: user.fullName,
    is_private: user.isPrivate,
    profile_pic_url: picUrl(user),
    is_verified: user.isVerified,
    biography: user.biography,
    external_url: user.externalUrl,
    is_business: user.isBusiness,
    birthday: user.birthday,
    phone_number: user.phone || null,
    gender: user.gender,
    email: user.email,
  };
}

export function location(loc: LocationRec): Rec {
  return {
    pk: loc.pk,
    name: loc.name,
    phone: loc.phone,
    website: loc.website,
    category: loc.category,
    hours: {},
    address: loc.address,
    city: loc.city,
    zip: loc.zip,
    lng: loc.lng,
    lat: loc.lat,
    external_id: loc.pk,
    external_id_source: 'facebook_places',
  };
}

const MEDIA_TYPE = { photo: 1, video: 2, album: 8, clip: 2, igtv: 2 } as const;
const PRODUCT = { photo: 'feed', video: 'feed', album: 'carousel_container', clip: 'clips', igtv: 'igtv' } as const;

export function media(world: World, m: MediaRec, viewer: string | null): Rec {
  const owner = world.users.get(m.owner);
  const loc = m.location ? world.locations.get(m.location) : undefined;
  const isVideo = m.kind !== 'photo' && m.kind !== 'album';
  const thumb = mediaUrls.image(m.pk);
  return {
    pk: m.pk,
    id: `${m.pk}_${m.owner}`,
    code: codeFromPk(m.pk),
    taken_at: iso(m.takenAt),
    media_type: MEDIA_TYPE[m.kind],
    image_versions2: { candidates: [{ estimated_scans_sizes: [], height: 64, scans_profile: null, url: thumb, width: 64, is_spatial_image: null }] },
    product_type: PRODUCT[m.kind],
    thumbnail_url: thumb,
    location: loc ? location(loc) : null,
    user: owner ? userShort(owner) : { pk: m.owner },
    comment_count: commentCount(world, m),
    comments_disabled: m.commentsDisabled,
    commenting_disabled_for_viewer: m.commentsDisabled,
    like_count: m.likers.size,
    play_count: m.kind === 'clip' ? m.plays : null,
    has_liked: viewer ? m.likers.has(viewer) : null,
    caption_text: m.caption,
    accessibility_caption: `Photo by ${owner?.fullName ?? 'someone'}`,
    usertags: m.usertags.flatMap((t) => {
      const u = world.users.get(t.user);
      return u ? [{ user: userShort(u), x: t.x, y: t.y }] : [];
    }),
    sponsor_tags: [],
    video_url: isVideo ? mediaUrls.video(m.pk) : null,
    view_count: isVideo ? m.plays * 2 : 0,
    video_duration: m.duration,
    title: m.title,
    resources: m.children.map((c) => ({
      pk: c.pk,
      video_url: c.video ? mediaUrls.video(c.pk) : null,
      thumbnail_url: mediaUrls.image(c.pk),
      media_type: c.video ? 2 : 1,
    })),
    clips_metadata: m.kind === 'clip' ? clipsMetadata(world, m, viewer) : null,
  };
}

function clipsMetadata(world: World, m: MediaRec, viewer: string | null): Rec {
  const track = m.track ? world.tracks.get(m.track) : undefined;
  return {
    clips_creation_entry_point: 'clips',
    audio_type: track ? 'licensed_music' : 'original_sounds',
    music_canonical_id: track?.canonicalId ?? '',
    music_info: track
      ? {
          music_asset_info: { audio_cluster_id: track.clusterId, title: track.title, display_artist: track.artist },
          music_consumption_info: musicConsumption(track, viewer),
        }
      : null,
    is_shared_to_fb: false,
    show_achievements: false,
  };
}

/** music_info.music_consumption_info: how the viewer relates to a track (saved or not). */
export function musicConsumption(t: TrackRec, viewer: string | null): Rec {
  return {
    is_bookmarked: viewer !== null && t.bookmarkedBy.has(viewer),
    should_mute_audio: false,
    should_mute_audio_reason: '',
    should_mute_audio_reason_type: null,
    allow_media_creation_with_music: true,
    is_trending_in_clips: false,
    trend_rank: null,
    formatted_clips_media_count: null,
    display_media_id: null,
    overlap_duration_in_ms: 15000,
    audio_asset_start_time_in_ms: 0,
  };
}

export function commentCount(world: World, m: MediaRec): number {
  let count = m.comments.length;
  for (const pk of m.comments) count += world.comments.get(pk)?.replies.length ?? 0;
  return count;
}

export function comment(world: World, c: CommentRec, viewer: string | null): Rec {
  const user = world.users.get(c.user);
  return {
    pk: c.pk,
    text: c.text,
    user: user ? userShort(user) : { pk: c.user },
    created_at_utc: iso(c.createdAt),
    content_type: 'comment',
    status: 'Active',
    replied_to_comment_id: c.repliedTo,
    has_liked: viewer ? c.likers.has(viewer) : null,
    like_count: c.likers.size,
  };
}

export function story(world: World, s: StoryRec): Rec {
  const owner = world.users.get(s.owner)!;
  const thumb = mediaUrls.image(s.pk);
  const place = { x: 0.5, y: 0.5, width: 0.5, height: 0.1, rotation: 0 };
  return {
    pk: s.pk,
    id: `${s.pk}_${s.owner}`,
    code: codeFromPk(s.pk),
    taken_at: iso(s.takenAt),
    imported_taken_at: null,
    media_type: s.video ? 2 : 1,
    product_type: 'story',
    thumbnail_url: thumb,
    user: userShort(owner),
    video_url: s.video ? mediaUrls.video(s.pk) : null,
    video_duration: s.video ? 5 : 0,
    sponsor_tags: [],
    is_paid_partnership: false,
    mentions: s.mentions.flatMap((pk) => (world.users.has(pk) ? [{ user: userShort(world.users.get(pk)!), ...place }] : [])),
    links: s.links.map((url) => ({ webUri: url, x: 0.5126011, y: 0.5168225, z: 0, width: 0.50998676, height: 0.25875, rotation: 0 })),
    hashtags: s.hashtags.flatMap((name) => (world.hashtags.has(name) ? [{ hashtag: hashtag(world, name), ...place }] : [])),
    locations: s.locations.flatMap((pk) => (world.locations.has(pk) ? [{ location: location(world.locations.get(pk)!), ...place }] : [])),
    stickers: [],
    medias: [],
    polls: [],
  };
}

export function hashtag(world: World, name: string): Rec {
  const tag = world.hashtags.get(name)!;
  // Counted as the hashtag's pages list them: archived posts are not shown.
  const shown = shownMedia(world, tag.media);
  return { id: tag.id, name: tag.name, media_count: shown.length, profile_pic_url: shown.length ? mediaUrls.image(shown[0]) : null };
}

export function highlight(world: World, h: HighlightRec, withItems: boolean): Rec {
  const owner = world.users.get(h.owner)!;
  const stories = h.stories.map((pk) => world.stories.get(pk)).filter((s): s is StoryRec => Boolean(s));
  return {
    pk: h.pk,
    id: `highlight:${h.pk}`,
    latest_reel_media: Math.max(0, ...stories.map((s) => s.takenAt)),
    cover_media: { cropped_image_version: { url: mediaUrls.image(h.cover), width: 150, height: 150 }, media_id: `${h.cover}_${h.owner}` },
    user: userShort(owner),
    title: h.title,
    created_at: iso(h.createdAt),
    is_pinned_highlight: h.pinned,
    media_count: stories.length,
    media_ids: stories.map((s) => s.pk),
    items: withItems ? stories.map((s) => story(world, s)) : [],
  };
}
