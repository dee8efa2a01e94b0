// Read-back checks: how a write whose answer was lost is confirmed from the platform's own state,
// each a read that the write's effect shows in. A check answers `done` with the value the route
// would have answered (the relationship's `true`, the comment, the post, the message), `absent`
// when the state shows the write did not happen, and throws when it cannot tell. A manifest route
// names its check (`reconcile:`), or `none`; without, the check of its upstream write method below.
import { type InputBag, UpstreamError } from '../../engine/types.js';

export interface ReadBack {
  readonly bag: InputBag;
  /** The account's pk. */
  readonly me: string;
  /** When the write began (epoch ms): a new item must be at least this recent (less a minute of clock skew). */
  readonly since: number;
  call(method: string, kwargs: Readonly<Record<string, unknown>>): Promise<unknown>;
}

export type Verdict = { readonly done: true; readonly value: unknown } | { readonly done: false };

export interface Check {
  /** What the caller should look at when it cannot be told (WriteOutcomeUnknown's detail). */
  what(bag: InputBag): string;
  run(input: ReadBack): Promise<Verdict>;
}

type Json = Record<string, unknown>;
const SKEW_MS = 60_000;
const done = (value: unknown): Verdict => ({ done: true, value });
const absent: Verdict = { done: false };
const text = (value: unknown): string => (value == null ? '' : String(value));
const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);
/** A page answered as [items, cursor] or as the items. */
const itemsOf = (value: unknown): Json[] => (Array.isArray(value) && Array.isArray(value[0]) ? list(value[0]) : list(value));
const recent = (at: unknown, since: number): boolean => Date.parse(text(at)) >= since - SKEW_MS || Number(at) * 1000 >= since - SKEW_MS;

/** What a state read finds: whether the write's state holds, and what the route answers then (`true` unless said). */
type Found = { readonly holds: boolean; readonly answer?: unknown };

/** A state the write sets (on) or clears (off), read from one record. */
function state(what: string, read: (input: ReadBack) => Promise<Found>, on: boolean): Check {
  return {
    what: (bag) => `${what} (${describe(bag)})`,
    async run(input) {
      const found = await read(input);
      return found.holds === on ? done(on ? (found.answer ?? true) : true) : absent;
    },
  };
}

function describe(bag: InputBag): string {
  return ['media_id', 'media_pk', 'collection_pk', 'user_id', 'username', 'hashtag', 'story_id', 'story_pk', 'highlight_pk', 'thread_id']
    .filter((name) => bag[name] !== undefined)
    .map((name) => `${name} ${text(bag[name])}`)
    .join(', ');
}

async function userId(input: ReadBack): Promise<string> {
  if (input.bag.user_id !== undefined) return text(input.bag.user_id);
  return text(await input.call('user_id_from_username', { username: input.bag.username }));
}

const friendship = async (input: ReadBack): Promise<Json> => (await input.call('user_friendship_v1', { user_id: await userId(input) })) as Json;
const liked = async (input: ReadBack): Promise<Found> => ({
  holds: ((await input.call('media_info', { media_pk: input.bag.media_id })) as Json).has_liked === true,
});
/** A follow of a private account is a request: done, and answered false as the follow itself answers it. */
const follows = async (input: ReadBack): Promise<Found> => {
  const relation = await friendship(input);
  return { holds: relation.following === true || relation.outgoing_request === true, answer: relation.following === true };
};
/** One flag of the account's relationship with the user (aiograpi's Relationship: blocking, muting, is_bestie, ...). */
const relation =
  (flag: string) =>
  async (input: ReadBack): Promise<Found> => ({ holds: (await friendship(input))[flag] === true });
const pkOf = (value: unknown): string => text(value).split('_')[0];

/**
 * Whether a list read holds the item. A list the platform keeps newest first (saves, pins) shows a
 * write just made on its first page; an item missing from a full page may still be further down,
 * which proves nothing for a removal: that read cannot tell.
 */
function member(items: readonly Json[], wanted: (item: Json) => boolean, full: boolean, on: boolean): Found {
  if (items.some(wanted)) return { holds: true };
  if (full && !on) throw new Error('the item may be past the first page');
  return { holds: false };
}

/** Whether a record still exists: the platform's not-found for it says it is gone; any other failure cannot tell. */
const exists =
  (method: string, key: string, bagKey: string, gone: string, fresh: Json = { use_cache: false }) =>
  async (input: ReadBack): Promise<Found> => {
    try {
      await input.call(method, { [key]: pkOf(input.bag[bagKey]), ...fresh });
      return { holds: true };
    } catch (error) {
      if (error instanceof UpstreamError && error.excType === gone) return { holds: false };
      throw error;
    }
  };
/** One flag of the account's side of a conversation (aiograpi's DirectThread: muted, vc_muted). */
const thread =
  (flag: string) =>
  async (input: ReadBack): Promise<Found> => ({
    holds: ((await input.call('direct_thread', { thread_id: input.bag.thread_id, amount: 1 })) as Json)[flag] === true,
  });
/** The account's own record (aiograpi's Account: is_private, biography). */
const own =
  (holds: (account: Json, bag: InputBag) => boolean) =>
  async (input: ReadBack): Promise<Found> => ({ holds: holds((await input.call('account_info', {})) as Json, input.bag) });

const SAVED_PAGE = 50;
/** The saved posts (or the named collection's), newest first: `collection_medias` of the platform's "All posts" collection. */
const saved =
  (on: boolean) =>
  async (input: ReadBack): Promise<Found> => {
    const collection = input.bag.collection_pk ?? 'ALL_MEDIA_AUTO_COLLECTION';
    const page = list(await input.call('collection_medias', { collection_pk: collection, amount: SAVED_PAGE }));
    return member(page, (m) => pkOf(m.pk) === pkOf(input.bag.media_id), page.length >= SAVED_PAGE, on);
  };
/** The account's pinned posts (at most a few: the list is whole). */
const pinned = async (input: ReadBack): Promise<Found> => {
  const page = list(await input.call('user_pinned_medias', { user_id: input.me }));
  return member(page, (m) => pkOf(m.pk) === pkOf(input.bag.media_pk), false, true);
};
/** The story's likers (aiograpi 1.12's `story_likers`; 1.0.9 has no read of a story like: the outcome stays unknown). */
const storyLiked = async (input: ReadBack): Promise<Found> => {
  const likers = list(await input.call('story_likers', { story_pk: pkOf(input.bag.story_id), amount: 0 }));
  return member(likers, (u) => text(u.pk) === input.me, false, true);
};
/** The hashtags the account follows (aiograpi 1.12's `hashtag_following`; 1.0.9 has none: unknown). */
const hashtagFollowed = async (input: ReadBack): Promise<Found> => {
  const name = (value: unknown) => text(value).replace(/^#/, '').trim().toLowerCase();
  const tags = list(await input.call('hashtag_following', { amount: 0 }));
  return member(tags, (h) => name(h.name) === name(input.bag.hashtag), false, true);
};

/** The account's newest comment on the media with the text, made since the write began. */
const comment: Check = {
  what: (bag) => `the newest comments of media ${text(bag.media_id)} for this account's "${text(bag.text)}"`,
  async run(input) {
    const page = await input.call('media_comments_chunk', { media_id: input.bag.media_id, max_amount: 50 });
    const mine = itemsOf(page).find(
      (c) => text((c.user as Json | undefined)?.pk) === input.me && c.text === input.bag.text && recent(c.created_at_utc ?? c.created_at, input.since),
    );
    return mine ? done(mine) : absent;
  },
};

/** The account's newest post with the caption, taken since the write began. */
const upload: Check = {
  what: (bag) => `the account's newest posts for one captioned "${text(bag.caption)}"`,
  async run(input) {
    const page = await input.call('user_medias_paginated_v1', { user_id: input.me, amount: 6 });
    const post = itemsOf(page).find((m) => text(m.caption_text) === text(input.bag.caption) && recent(m.taken_at, input.since));
    return post ? done(post) : absent;
  },
};

/** The account's newest story, taken since the write began (a story has no caption to match). */
const story: Check = {
  what: () => "the account's stories of the last minutes",
  async run(input) {
    const stories = list(await input.call('user_stories', { user_id: input.me, amount: 10 }));
    const newest = stories.filter((s) => recent(s.taken_at, input.since)).sort((a, b) => Date.parse(text(b.taken_at)) - Date.parse(text(a.taken_at)))[0];
    return newest ? done(newest) : absent;
  },
};

/** The account's newest message with the text in the (first) thread it went to. */
const directMessage: Check = {
  what: (bag) => `the newest messages of the conversation for this account's "${text(bag.text)}"`,
  async run(input) {
    const messages = list(await input.call('direct_messages', { thread_id: await threadOf(input), amount: 20 }));
    const mine = messages.find((m) => text(m.user_id) === input.me && text(m.text) === text(input.bag.text) && recent(m.timestamp, input.since));
    return mine ? done(mine) : absent;
  },
};

async function threadOf(input: ReadBack): Promise<string> {
  const given = list(input.bag.thread_ids)[0] ?? input.bag.thread_id;
  if (given !== undefined) return text(given);
  const found = (await input.call('direct_thread_by_participants', { user_ids: input.bag.user_ids })) as Json;
  return text((found.thread as Json | undefined)?.id ?? found.id);
}

export const CHECKS: Readonly<Record<string, Check>> = {
  liked: state('whether this account likes the media', liked, true),
  unliked: state('whether this account still likes the media', liked, false),
  following: state('whether this account follows (or asked to follow) the user', follows, true),
  unfollowed: state('whether this account still follows the user', follows, false),
  blocked: state('whether this account blocks the user', relation('blocking'), true),
  unblocked: state('whether this account still blocks the user', relation('blocking'), false),
  posts_muted: state("whether this account mutes the user's posts", relation('muting'), true),
  posts_unmuted: state("whether this account still mutes the user's posts", relation('muting'), false),
  stories_muted: state("whether this account mutes the user's stories", relation('is_muting_reel'), true),
  stories_unmuted: state("whether this account still mutes the user's stories", relation('is_muting_reel'), false),
  close_friend: state("whether the user is on this account's close friends", relation('is_bestie'), true),
  not_close_friend: state("whether the user is still on this account's close friends", relation('is_bestie'), false),
  follower_removed: state('whether the user still follows this account', relation('followed_by'), false),
  saved: state("whether the post is in this account's saved posts (or the collection)", saved(true), true),
  unsaved: state("whether the post is still in this account's saved posts (or the collection)", saved(false), false),
  pinned: state("whether the post is pinned to this account's profile", pinned, true),
  unpinned: state("whether the post is still pinned to this account's profile", pinned, false),
  media_deleted: state('whether the post still exists', exists('media_info', 'media_pk', 'media_id', 'MediaNotFound'), false),
  story_deleted: state('whether the story still exists', exists('story_info', 'story_pk', 'story_pk', 'StoryNotFound'), false),
  highlight_deleted: state('whether the highlight still exists', exists('highlight_info', 'highlight_pk', 'highlight_pk', 'HighlightNotFound', {}), false),
  thread_muted: state('whether this account mutes the conversation', thread('muted'), true),
  thread_unmuted: state('whether this account still mutes the conversation', thread('muted'), false),
  calls_muted: state("whether this account mutes the conversation's video calls", thread('vc_muted'), true),
  calls_unmuted: state("whether this account still mutes the conversation's video calls", thread('vc_muted'), false),
  privacy: state(
    'whether the account is private as asked',
    own((account, bag) => account.is_private === bag.is_private),
    true,
  ),
  biography: state(
    "the account's biography",
    own((account, bag) => text(account.biography) === text(bag.biography)),
    true,
  ),
  request_approved: state('whether the user follows this account now', relation('followed_by'), true),
  request_declined: state("whether the user's follow request is still pending", relation('incoming_request'), false),
  story_liked: state('whether this account likes the story (its likers)', storyLiked, true),
  story_unliked: state('whether this account still likes the story (its likers)', storyLiked, false),
  hashtag_followed: state('whether this account follows the hashtag', hashtagFollowed, true),
  hashtag_unfollowed: state('whether this account still follows the hashtag', hashtagFollowed, false),
  comment,
  upload,
  story,
  direct_message: directMessage,
};

/** The check of a route that names none, by the upstream write method it calls. */
export const CHECK_OF_METHOD: Readonly<Record<string, keyof typeof CHECKS>> = {
  media_like: 'liked',
  media_unlike: 'unliked',
  user_follow: 'following',
  user_unfollow: 'unfollowed',
  user_block: 'blocked',
  user_unblock: 'unblocked',
  mute_posts_from_follow: 'posts_muted',
  unmute_posts_from_follow: 'posts_unmuted',
  mute_stories_from_follow: 'stories_muted',
  unmute_stories_from_follow: 'stories_unmuted',
  close_friend_add: 'close_friend',
  close_friend_remove: 'not_close_friend',
  user_remove_follower: 'follower_removed',
  media_save: 'saved',
  media_unsave: 'unsaved',
  media_pin: 'pinned',
  media_unpin: 'unpinned',
  media_delete: 'media_deleted',
  story_delete: 'story_deleted',
  highlight_delete: 'highlight_deleted',
  direct_thread_mute: 'thread_muted',
  direct_thread_unmute: 'thread_unmuted',
  direct_thread_mute_video_call: 'calls_muted',
  direct_thread_unmute_video_call: 'calls_unmuted',
  account_set_private: 'privacy',
  account_set_public: 'privacy',
  account_set_biography: 'biography',
  user_follow_request_approve: 'request_approved',
  user_follow_request_decline: 'request_declined',
  story_like: 'story_liked',
  story_unlike: 'story_unliked',
  hashtag_follow: 'hashtag_followed',
  hashtag_unfollow: 'hashtag_unfollowed',
  media_comment: 'comment',
  photo_upload: 'upload',
  video_upload: 'upload',
  clip_upload: 'upload',
  album_upload: 'upload',
  igtv_upload: 'upload',
  photo_upload_with_music: 'upload',
  clip_upload_with_music: 'upload',
  album_upload_with_music: 'upload',
  photo_upload_to_story: 'story',
  video_upload_to_story: 'story',
  photo_upload_to_story_with_music: 'story',
  video_upload_to_story_with_music: 'story',
  direct_send: 'direct_message',
  direct_answer: 'direct_message',
};
