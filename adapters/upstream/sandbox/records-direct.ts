// Response records for direct messaging, notes, music, collections and relationships.
import { mediaUrls } from './files.js';
import { iso, media, story, userShort, type Rec } from './records.js';
import type { CollectionRec, MediaNoteRec, MessageRec, NoteRec, ThreadRec, TrackRec, World } from './world/types.js';

const FOLDER = { inbox: 0, pending: 1, spam: 2, hidden: 0 } as const;
/** The platform's automatic collection of every saved post ("All posts"). */
export const ALL_POSTS = 'ALL_MEDIA_AUTO_COLLECTION';

export function thread(world: World, t: ThreadRec, viewer: string, amount = 20): Rec {
  const mine = t.state.get(viewer);
  const ids = amount > 0 ? t.messages.slice(-amount) : t.messages;
  const last = world.messages.get(t.messages[t.messages.length - 1]);
  return {
    pk: t.pk,
    id: t.id,
    messages: ids
      .slice()
      .reverse()
      .map((id) => message(world, world.messages.get(id)!, viewer)),
    users: t.users.filter((u) => u !== viewer).flatMap((u) => (world.users.has(u) ? [userShort(world.users.get(u)!)] : [])),
    inviter: world.users.has(t.admin) ? userShort(world.users.get(t.admin)!) : null,
    left_users: [],
    admin_user_ids: [t.admin],
    last_activity_at: iso(last ? last.ts : t.createdAt),
    muted: mine?.muted ?? false,
    is_pin: false,
    named: Boolean(t.title),
    canonical: !t.isGroup,
    pending: mine?.folder === 'pending',
    archived: false,
    thread_type: 'private',
    thread_title: t.title || titleOf(world, t, viewer),
    folder: FOLDER[mine?.folder ?? 'inbox'],
    vc_muted: mine?.vcMuted ?? false,
    is_group: t.isGroup,
    mentions_muted: false,
    approval_required_for_new_members: false,
    input_mode: 0,
    business_thread_folder: 0,
    read_state: mine?.unread ? 1 : 0,
    is_close_friend_thread: false,
    assigned_admin_id: 0,
    shh_mode_enabled: false,
    last_seen_at: {},
  };
}

function titleOf(world: World, t: ThreadRec, viewer: string): string {
  return t.users
    .filter((u) => u !== viewer)
    .map((u) => world.users.get(u)?.username ?? u)
    .join(', ');
}

export function shortThread(world: World, t: ThreadRec, viewer: string): Rec {
  const full = thread(world, t, viewer, 0);
  return {
    id: t.id,
    users: full.users,
    named: full.named,
    thread_title: full.thread_title,
    pending: full.pending,
    thread_type: 'private',
    viewer_id: viewer,
    is_group: t.isGroup,
  };
}

const ITEM_TYPE = {
  text: 'text',
  media_share: 'media_share',
  clip: 'clip',
  media: 'media',
  voice_media: 'voice_media',
  story_share: 'story_share',
  profile: 'profile',
  link: 'link',
} as const;

export function message(world: World, m: MessageRec, viewer: string): Rec {
  const shared = m.ref && (m.type === 'media_share' || m.type === 'clip') ? world.media.get(m.ref) : undefined;
  const sharedStory = m.ref && m.type === 'story_share' ? world.stories.get(m.ref) : undefined;
  const profile = m.ref && m.type === 'profile' ? world.users.get(m.ref) : undefined;
  return {
    id: m.id,
    user_id: m.user,
    thread_id: m.thread,
    timestamp: iso(m.ts),
    item_type: ITEM_TYPE[m.type],
    is_sent_by_viewer: m.user === viewer,
    is_shh_mode: false,
    reactions: {
      likes: [...m.likes].map((u) => ({ sender_id: u, timestamp: m.ts * 1e6 })),
      likes_count: m.likes.size,
      emojis: [...m.reactions].map(([u, emoji]) => ({ timestamp: iso(m.ts), client_context: null, sender_id: u, emoji, super_react_type: 'none' })),
    },
    text: m.type === 'text' || m.type === 'link' ? m.text : m.text || null,
    reply: null,
    link:
      m.type === 'link'
        ? { text: m.text, link_context: { link_url: m.text, link_title: '', link_summary: '', link_image_url: '' }, client_context: null, mutation_token: null }
        : null,
    animated_media: null,
    media: m.type === 'media' || m.type === 'voice_media' ? directMedia(m) : null,
    visual_media: null,
    media_share: shared && m.type === 'media_share' ? media(world, shared, viewer) : null,
    reel_share: null,
    story_share: sharedStory ? { media: story(world, sharedStory), text: '' } : null,
    felix_share: null,
    xma_share: null,
    generic_xma: null,
    raw_xma: profile ? { profile: userShort(profile) } : null,
    clip: shared && m.type === 'clip' ? media(world, shared, viewer) : null,
    placeholder: null,
    client_context: null,
  };
}

function directMedia(m: MessageRec): Rec {
  const key = m.ref ?? m.id;
  const voice = m.type === 'voice_media';
  return {
    id: m.id,
    media_type: voice ? 11 : m.video ? 2 : 1,
    user: null,
    thumbnail_url: voice ? null : mediaUrls.image(key),
    video_url: m.video ? mediaUrls.video(key) : null,
    audio_url: voice ? mediaUrls.audio(key) : null,
  };
}

export function note(world: World, n: NoteRec): Rec {
  const user = world.users.get(n.user)!;
  return {
    id: n.id,
    text: n.text,
    user_id: n.user,
    user: userShort(user),
    audience: n.audience,
    created_at: iso(n.createdAt),
    expires_at: iso(n.createdAt + 86400),
    is_emoji_only: !/[A-Za-z0-9]/.test(n.text),
    has_translation: false,
    note_style: n.style,
  };
}

/** A note on a post or reel, as media/create_note/v2 answers it and raw media carry it. */
export function mediaNote(world: World, n: MediaNoteRec): Rec {
  const user = world.users.get(n.user);
  const owner = world.media.get(n.media)?.owner ?? '';
  return {
    id: n.id,
    media_id: `${n.media}_${owner}`,
    text: n.text,
    audience: n.audience,
    note_style: n.style,
    user_id: n.user,
    user: user ? userShort(user) : { pk: n.user },
    created_at: n.createdAt,
    expires_at: n.createdAt + 86400 * 3,
  };
}

export function track(t: TrackRec): Rec {
  const audio = mediaUrls.audio(`t${t.id}`);
  const cover = mediaUrls.image(`t${t.id}`);
  return {
    id: t.id,
    title: t.title,
    subtitle: '',
    display_artist: t.artist,
    audio_cluster_id: t.clusterId,
    music_canonical_id: t.canonicalId,
    artist_id: t.artistId,
    cover_artwork_uri: cover,
    cover_artwork_thumbnail_uri: cover,
    progressive_download_url: audio,
    fast_start_progressive_download_url: audio,
    reactive_audio_download_url: null,
    highlight_start_times_in_ms: [0, 15000, 30000],
    is_explicit: t.explicit,
    dash_manifest: '',
    uri: null,
    has_lyrics: false,
    audio_asset_id: t.id,
    duration_in_ms: t.durationMs,
    dark_message: null,
    allows_saving: true,
    territory_validity_periods: {},
  };
}

/** The automatic "All posts" collection has its pk as its type; named ones are MEDIA. */
export function collection(c: CollectionRec): Rec {
  return { id: c.pk, name: c.name, type: c.pk === ALL_POSTS ? ALL_POSTS : 'MEDIA', media_count: c.media.length };
}

export function relationship(world: World, viewer: string, target: string): Rec {
  const me = world.users.get(viewer)!;
  const them = world.users.get(target)!;
  return {
    user_id: target,
    blocking: me.blocked.has(target),
    followed_by: me.followers.has(target),
    following: me.following.has(target),
    incoming_request: me.requests.has(target),
    is_bestie: me.closeFriends.has(target),
    is_blocking_reel: false,
    is_muting_reel: me.mutedStories.has(target),
    is_private: them.isPrivate,
    is_restricted: false,
    muting: me.mutedPosts.has(target),
    outgoing_request: them.requests.has(viewer),
  };
}

export function relationshipShort(world: World, viewer: string, target: string): Rec {
  const full = relationship(world, viewer, target);
  return {
    user_id: target,
    following: full.following,
    incoming_request: full.incoming_request,
    is_bestie: full.is_bestie,
    is_feed_favorite: false,
    is_private: full.is_private,
    is_restricted: false,
    outgoing_request: full.outgoing_request,
  };
}
