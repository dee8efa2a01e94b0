// The sandbox's world: plain records keyed by id, with relations as ordered Sets and arrays so that
// every list pages in a stable order. Response records are built from these on each call.

export type MediaKind = 'photo' | 'video' | 'album' | 'clip' | 'igtv';
export type Folder = 'inbox' | 'pending' | 'spam' | 'hidden';
export type NotifyKind = 'posts' | 'stories' | 'reels' | 'videos';

export interface UserRec {
  pk: string;
  username: string;
  fullName: string;
  isPrivate: boolean;
  isVerified: boolean;
  isBusiness: boolean;
  biography: string;
  externalUrl: string | null;
  category: string | null;
  bioLinks: { link_id: string; url: string; title: string }[];
  email: string;
  phone: string;
  birthday: string;
  gender: number;
  city: string;
  country: string;
  joined: number;
  picVersion: number;
  followers: Set<string>;
  following: Set<string>;
  /** Incoming follow requests (private accounts). */
  requests: Set<string>;
  /** Media the user owns, newest first (posts, clips, IGTV). */
  media: string[];
  tagged: string[];
  stories: string[];
  archivedStories: string[];
  highlights: string[];
  /** Posts pinned to the profile grid, most recently pinned first. */
  pinned: string[];
  /** Reels pinned to the reels tab, most recently pinned first. */
  pinnedClips: string[];
  closeFriends: Set<string>;
  blocked: Set<string>;
  mutedPosts: Set<string>;
  mutedStories: Set<string>;
  notify: Map<string, Set<NotifyKind>>;
  liked: string[];
  saved: string[];
  collections: string[];
  hashtags: Set<string>;
  notificationSettings: Map<string, string>;
  /** Epoch seconds until which notification_mute_all pauses new activity (0: not paused). */
  notificationsMutedUntil: number;
  totpEnabled: boolean;
  totpSeed: string | null;
  password: string;
}

export interface MediaRec {
  pk: string;
  owner: string;
  kind: MediaKind;
  takenAt: number;
  caption: string;
  title: string;
  usertags: { user: string; x: number; y: number }[];
  location: string | null;
  likers: Set<string>;
  comments: string[];
  commentsDisabled: boolean;
  archived: boolean;
  pinned: boolean;
  clipPinned: boolean;
  duration: number;
  plays: number;
  children: { pk: string; video: boolean }[];
  hashtags: string[];
  track: string | null;
}

export interface CommentRec {
  pk: string;
  media: string;
  user: string;
  text: string;
  createdAt: number;
  repliedTo: string | null;
  replies: string[];
  likers: Set<string>;
  pinned: boolean;
}

export interface StoryRec {
  pk: string;
  owner: string;
  takenAt: number;
  video: boolean;
  mentions: string[];
  hashtags: string[];
  locations: string[];
  links: string[];
  likers: Set<string>;
  viewers: string[];
  caption: string;
}

export interface HighlightRec {
  pk: string;
  owner: string;
  title: string;
  stories: string[];
  cover: string;
  createdAt: number;
  pinned: boolean;
}

export interface HashtagRec {
  id: string;
  name: string;
  media: string[];
}

export interface LocationRec {
  pk: string;
  name: string;
  address: string;
  city: string;
  zip: string;
  lat: number;
  lng: number;
  category: string;
  phone: string;
  website: string;
  media: string[];
}

export interface CollectionRec {
  pk: string;
  owner: string;
  name: string;
  media: string[];
}

export interface ThreadUserState {
  folder: Folder;
  muted: boolean;
  vcMuted: boolean;
  unread: boolean;
  lastSeen: string | null;
}

export interface ThreadRec {
  id: string;
  pk: string;
  users: string[];
  admin: string;
  title: string;
  isGroup: boolean;
  createdAt: number;
  messages: string[];
  state: Map<string, ThreadUserState>;
}

export type MessageType = 'text' | 'media_share' | 'clip' | 'media' | 'voice_media' | 'story_share' | 'profile' | 'link';

export interface MessageRec {
  id: string;
  thread: string;
  user: string;
  ts: number;
  /** World-wide order of sending: breaks ties between messages of the same second. */
  seq: number;
  type: MessageType;
  text: string;
  ref: string | null;
  video: boolean;
  reactions: Map<string, string>;
  likes: Set<string>;
  seenBy: Set<string>;
}

export interface NoteRec {
  id: string;
  user: string;
  text: string;
  audience: number;
  createdAt: number;
  style: number;
  track: string | null;
  seenBy: Set<string>;
}

/** A note left on a post or reel (separate from inbox notes). */
export interface MediaNoteRec {
  id: string;
  media: string;
  user: string;
  text: string;
  audience: number;
  style: number;
  createdAt: number;
}

/** A broadcast channel (one-to-many direct thread, thread subtype 29) a creator runs. */
export interface ChannelRec {
  id: string;
  owner: string;
  title: string;
  subtitle: string;
  members: Set<string>;
  createdAt: number;
}

/** A standalone fundraiser shown on a profile. */
export interface FundraiserRec {
  id: string;
  owner: string;
  title: string;
  description: string;
  beneficiary: string;
  goalCents: number;
  raisedCents: number;
  supporters: string[];
  startAt: number;
  endAt: number;
}

export interface TrackRec {
  id: string;
  title: string;
  artist: string;
  artistId: string;
  clusterId: string;
  canonicalId: string;
  durationMs: number;
  explicit: boolean;
  bookmarkedBy: Set<string>;
}

export type LiveState = 'created' | 'started' | 'ended';
export interface LiveRec {
  id: string;
  owner: string;
  title: string;
  state: LiveState;
  createdAt: number;
  startedAt: number | null;
  endedAt: number | null;
  /** The audience's comments, written out as the broadcast's time passes (see methods/live.ts). */
  comments: { pk: string; user: string; text: string; at: number }[];
  viewers: string[];
}

export interface World {
  readonly seed: number;
  /** Epoch seconds the world's timestamps are relative to. */
  readonly epoch: number;
  readonly users: Map<string, UserRec>;
  readonly byUsername: Map<string, string>;
  readonly media: Map<string, MediaRec>;
  readonly comments: Map<string, CommentRec>;
  readonly stories: Map<string, StoryRec>;
  readonly highlights: Map<string, HighlightRec>;
  readonly hashtags: Map<string, HashtagRec>;
  readonly locations: Map<string, LocationRec>;
  readonly collections: Map<string, CollectionRec>;
  readonly threads: Map<string, ThreadRec>;
  readonly messages: Map<string, MessageRec>;
  readonly notes: Map<string, NoteRec>;
  readonly mediaNotes: Map<string, MediaNoteRec>;
  readonly channels: Map<string, ChannelRec>;
  /** Standalone fundraisers by owner pk. */
  readonly fundraisers: Map<string, FundraiserRec>;
  /** The platform's AI chat characters (direct_search_gen_ai_bots), by pk. */
  readonly aiBots: string[];
  readonly tracks: Map<string, TrackRec>;
  readonly lives: Map<string, LiveRec>;
  /** Accounts whose challenge is still unresolved. */
  readonly challenged: Set<string>;
  /** When each follow and follow request was made ("f<from>><to>", "r<from>><to>"), for paging. */
  readonly since: Map<string, number>;
  /** Activity inbox stories that happened at run time (the live sandbox), by the account they are for. */
  readonly activity: Map<string, LiveStory[]>;
  /** Next id of each kind for objects created at run time; `edge` numbers follows and requests. */
  readonly counters: { id: bigint; message: number; edge: number };
}

/** Something that happened to an account at run time, as its activity inbox shows it. */
export interface LiveStory {
  readonly pk: string;
  readonly kind: 'likes' | 'comments' | 'new_follower';
  readonly actor: string;
  /** Epoch seconds. */
  readonly at: number;
  readonly media: string | null;
  /** The comment, for a comment story: the generated inbox leaves it to this story. */
  readonly comment?: string;
  readonly text: string;
}
