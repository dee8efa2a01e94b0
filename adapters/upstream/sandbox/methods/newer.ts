// The user-facing methods aiograpi added up to 1.12 (signatures-1.12.ts), played only when the
// sandbox plays 1.12.13 (SOCIALGATE_SANDBOX_VERSION): the registry leaves them out for 1.0.9.
import { id, int, record, str } from '../args.js';
import { fail } from '../errors.js';
import { findHashtag, findMedia, findStory, findTrack, findUser } from '../lookup.js';
import { pageBy, sortBy } from '../paging.js';
import { account, hashtag, userShort } from '../records.js';
import { track } from '../records-direct.js';
import type { Ctx, MethodDef, MethodTable } from '../registry.js';
import type { StoryRec, UserRec } from '../world/types.js';
import { mediaList, newestFirst, visible } from './common.js';
import { toStory } from './upload.js';

/** Poll votes by story, then poll id, then voter (the world keeps no polls of its own). */
const votes = new WeakMap<StoryRec, Map<string, Map<string, number>>>();
/** Reports by reporter: the sandbox remembers them so a test can see one arrived. */
const reports = new WeakMap<UserRec, Set<string>>();

function withMusic(video: boolean): MethodDef {
  const upload = toStory(video);
  return {
    run(ctx, a) {
      findTrack(ctx, record(a.track)?.id);
      return upload.run(ctx, a);
    },
  };
}

function convert(kind: 'business' | 'creator'): MethodDef {
  return {
    run(ctx, a) {
      const me = ctx.me();
      me.isBusiness = kind === 'business';
      me.category = String(a.category_id ?? '') || me.category;
      return account(me);
    },
  };
}

function likers(ctx: Ctx, story: StoryRec, cursor: unknown, size: number): [Record<string, unknown>[], string] {
  const users = [...story.likers].map((pk) => ctx.world.users.get(pk)!).filter(Boolean);
  const [page, next] = pageBy(users, (u) => [BigInt(u.pk)], cursor, size);
  return [page.map(userShort), next];
}

/** A linked destination: every sandbox account has one, named after it, as a linked account would be. */
const destination = (prefix: string, user: UserRec) => ({ destination_id: `${prefix}${user.pk}`, username: user.username });

export const newerMethods: MethodTable = {
  photo_upload_to_story_with_music: withMusic(false),
  video_upload_to_story_with_music: withMusic(true),
  media_link_reel: {
    run(ctx, a) {
      const m = findMedia(ctx, a.media_id);
      if (m.owner !== ctx.me().pk) fail('ClientForbiddenError', 'You can only link your own reels');
      findMedia(ctx, a.target_media_id);
      str(a.link_name, 'link_name');
      return true;
    },
  },
  story_poll_vote: {
    run(ctx, a) {
      const s = findStory(ctx, a.story_id);
      const vote = int(a.vote, 'vote');
      if (vote < 0) fail('ClientBadRequestError', 'vote must be a non-negative option index');
      const polls = votes.get(s) ?? new Map<string, Map<string, number>>();
      votes.set(s, polls);
      const poll = polls.get(id(a.poll_id, 'poll_id')) ?? new Map<string, number>();
      polls.set(id(a.poll_id, 'poll_id'), poll.set(ctx.me().pk, vote));
      return true;
    },
  },
  story_likers: { run: (ctx, a) => likers(ctx, findStory(ctx, a.story_pk), '', int(a.amount) || 10_000)[0] },
  story_likers_chunk: { run: (ctx, a) => likers(ctx, findStory(ctx, a.story_pk), a.max_id, int(a.max_amount) || 50) },
  user_report: {
    run(ctx, a) {
      const target = findUser(ctx, a.user_id);
      if (a.reason !== 'spam') fail('ClientBadRequestError', `Unsupported report reason: ${String(a.reason)}`);
      const me = ctx.me();
      reports.set(me, (reports.get(me) ?? new Set()).add(target.pk));
      return true;
    },
  },
  hashtag_following: {
    run(ctx, a) {
      const names = [...ctx.me().hashtags].sort();
      return (int(a.amount) > 0 ? names.slice(0, int(a.amount)) : names).map((name) => hashtag(ctx.world, findHashtag(ctx, name)));
    },
  },
  account_convert_to_business: convert('business'),
  account_convert_to_creator: convert('creator'),
  account_convert_to_professional: {
    run(ctx, a) {
      const type = int(a.to_account_type ?? 3, 'to_account_type');
      if (type !== 2 && type !== 3) fail('ClientBadRequestError', 'to_account_type is 2 (business) or 3 (creator)');
      return convert(type === 2 ? 'business' : 'creator').run(ctx, a);
    },
  },
  music_bookmarked: {
    run(ctx, a) {
      const me = ctx.me().pk;
      const saved = [...ctx.world.tracks.values()].filter((t) => t.bookmarkedBy.has(me));
      const [page, next] = pageBy(saved, (t) => [BigInt(t.id)], a.max_id, 20);
      return { items: page.map((t) => ({ track: track(t) })), next_max_id: next || null, more_available: next !== '', status: 'ok' };
    },
  },
  media_search: {
    run(ctx, a) {
      const words = str(a.query, 'query').toLowerCase().split(/\s+/).filter(Boolean);
      const hits = [...ctx.world.media.values()].filter((m) => words.length && words.every((w) => m.caption.toLowerCase().includes(w)));
      const pks = sortBy(
        visible(
          ctx,
          hits.map((m) => m.pk),
        ),
        newestFirst(ctx),
      );
      return mediaList(ctx, pks.slice(0, int(a.amount) || 27));
    },
  },
  media_share_to_threads_destination: {
    run: (ctx, a) => (a.destination_id ? { destination_id: String(a.destination_id) } : destination('threads-', ctx.me())),
  },
  media_share_to_fb_destination: {
    run(ctx, a) {
      const me = ctx.me();
      const type = String(a.destination_type ?? 'USER').toUpperCase();
      return {
        ...destination('fb-', me),
        destination_id: a.destination_id ? String(a.destination_id) : `fb-${me.pk}`,
        destination_type: type,
        audience: 'EVERYONE',
      };
    },
  },
};
