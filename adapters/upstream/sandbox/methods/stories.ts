// Stories (info, likes, viewers, archive) and highlights (create, edit, covers).
import { bool, ids, int, optInt, record, str } from '../args.js';
import { highlightPkFromUrl, storyPkFromUrl } from '../codes.js';
import { fail } from '../errors.js';
import { assertVisible, findHighlight, findStory, findUser } from '../lookup.js';
import { pageBy, take } from '../paging.js';
import { highlight, iso, story, userShort } from '../records.js';
import type { Ctx, MethodDef, MethodTable } from '../registry.js';
import { nextId } from '../world/social.js';
import type { HighlightRec, StoryRec, UserRec } from '../world/types.js';
import { remove, uploadFile } from './common.js';

const storyList = (ctx: Ctx, pks: readonly string[]) => pks.flatMap((pk) => (ctx.world.stories.has(pk) ? [story(ctx.world, ctx.world.stories.get(pk)!)] : []));

function likeStory(on: boolean, revertable: boolean): MethodDef {
  return {
    run(ctx, a) {
      const s = findStory(ctx, a.story_id);
      const enable = revertable && bool(a.revert) ? !on : on;
      if (enable) s.likers.add(ctx.me().pk);
      else s.likers.delete(ctx.me().pk);
      return true;
    },
  };
}

function ownHighlight(ctx: Ctx, value: unknown): HighlightRec {
  const h = findHighlight(ctx, value);
  if (h.owner !== ctx.me().pk) fail('ClientForbiddenError', 'You can only change your own highlights');
  return h;
}

/** Stories may be named by pk or by "pk_owner" id; each must belong to the caller. */
function ownStories(ctx: Ctx, values: unknown): string[] {
  return ids(values).map((value) => {
    const s = findStory(ctx, value);
    if (s.owner !== ctx.me().pk) fail('ClientForbiddenError', `Story ${s.pk} is not yours`);
    return s.pk;
  });
}

function archiveDays(ctx: Ctx, user: UserRec): { id: string; day: number; stories: StoryRec[] }[] {
  const days = new Map<number, StoryRec[]>();
  for (const pk of [...user.stories, ...user.archivedStories]) {
    const s = ctx.world.stories.get(pk);
    if (!s) continue;
    const day = Math.floor(s.takenAt / 86400) * 86400;
    days.set(day, [...(days.get(day) ?? []), s]);
  }
  return [...days.entries()].sort((a, b) => b[0] - a[0]).map(([day, stories]) => ({ id: `archiveDay:${day}`, day, stories }));
}

export const storyMethods: MethodTable = {
  story_info: { run: (ctx, a) => story(ctx.world, findStory(ctx, a.story_pk)) },
  story_pk_from_url: { open: true, local: true, run: (_ctx, a) => storyPkFromUrl(str(a.url, 'url')) },
  story_delete: {
    run(ctx, a) {
      const s = findStory(ctx, a.story_pk);
      if (s.owner !== ctx.me().pk) fail('ClientForbiddenError', 'You can only delete your own stories');
      ctx.world.stories.delete(s.pk);
      remove(ctx.me().stories, s.pk);
      remove(ctx.me().archivedStories, s.pk);
      for (const h of ctx.world.highlights.values()) remove(h.stories, s.pk);
      return true;
    },
  },
  story_like: likeStory(true, true),
  story_unlike: likeStory(false, false),
  story_seen: {
    run(ctx, a) {
      for (const pk of ids(a.story_pks)) {
        const s = findStory(ctx, pk);
        if (!s.viewers.includes(ctx.me().pk) && s.owner !== ctx.me().pk) s.viewers.push(ctx.me().pk);
      }
      return true;
    },
  },
  story_viewers_chunk: {
    run(ctx, a) {
      const s = findStory(ctx, a.story_pk);
      if (s.owner !== ctx.me().pk) fail('ClientForbiddenError', 'Only the owner sees who viewed a story');
      // Viewers only ever join the end of the list, so the order of viewing is a stable key.
      const [pks, next] = pageBy(s.viewers, (pk) => [BigInt(s.viewers.indexOf(pk))], a.max_id, int(a.max_amount) || 50);
      return [pks.map((pk) => ({ ...userShort(ctx.world.users.get(pk)!), has_liked: s.likers.has(pk), reply_text: '', is_spam_viewer: false })), next];
    },
  },
  user_stories: {
    run(ctx, a) {
      const user = findUser(ctx, a.user_id);
      assertVisible(ctx, user);
      return take(storyList(ctx, user.stories), optInt(a.amount, 0));
    },
  },
  users_stories_gql: {
    run(ctx, a) {
      const amount = int(a.amount);
      return ids(a.user_ids).map((pk) => {
        const user = findUser(ctx, pk);
        return { ...userShort(user), stories: take(storyList(ctx, user.stories), amount) };
      });
    },
  },
  archive_stories: { run: (ctx, a) => take(storyList(ctx, [...ctx.me().archivedStories]), int(a.amount)) },
  archive_story_days_paginated_v1: {
    run(ctx, a) {
      const [days, next] = pageBy(archiveDays(ctx, ctx.me()), (d) => [-BigInt(d.day)], a.end_cursor, int(a.amount) || 20);
      return [
        days.map((d) => ({
          id: d.id,
          timestamp: iso(d.day),
          media_count: d.stories.length,
          reel_type: 'archive_day_reel',
          latest_reel_media: Math.max(...d.stories.map((s) => s.takenAt)),
        })),
        next,
      ];
    },
  },
  sticker_tray: {
    run: () => ({
      static_stickers: [
        {
          id: 'sandbox',
          stickers: [
            { id: 'location_sticker', type: 'location' },
            { id: 'mention_sticker', type: 'mention' },
            { id: 'hashtag_sticker', type: 'hashtag' },
            { id: 'link_sticker', type: 'link' },
          ],
        },
      ],
      status: 'ok',
    }),
  },
  user_highlights: {
    run(ctx, a) {
      const user = findUser(ctx, a.user_id);
      assertVisible(ctx, user);
      return take(user.highlights, int(a.amount)).map((pk) => highlight(ctx.world, ctx.world.highlights.get(pk)!, false));
    },
  },
  highlight_info: { run: (ctx, a) => highlight(ctx.world, findHighlight(ctx, a.highlight_pk), true) },
  highlight_pk_from_url: { open: true, local: true, run: (_ctx, a) => highlightPkFromUrl(str(a.url, 'url')) },
  highlight_create: {
    run(ctx, a) {
      const stories = ownStories(ctx, a.story_ids);
      if (!stories.length) fail('ClientBadRequestError', 'A highlight needs at least one story');
      const cover = str(a.cover_story_id) ? ownStories(ctx, [a.cover_story_id])[0] : stories[0];
      const h: HighlightRec = {
        pk: nextId(ctx.world),
        owner: ctx.me().pk,
        title: str(a.title, 'title'),
        stories,
        cover,
        createdAt: ctx.nowSec(),
        pinned: false,
      };
      ctx.world.highlights.set(h.pk, h);
      ctx.me().highlights.unshift(h.pk);
      return highlight(ctx.world, h, true);
    },
  },
  highlight_change_title: {
    run(ctx, a) {
      const h = ownHighlight(ctx, a.highlight_pk);
      h.title = str(a.title, 'title');
      return highlight(ctx.world, h, true);
    },
  },
  highlight_add_stories: {
    run(ctx, a) {
      const h = ownHighlight(ctx, a.highlight_pk);
      for (const pk of ownStories(ctx, a.added_media_ids)) if (!h.stories.includes(pk)) h.stories.push(pk);
      return highlight(ctx.world, h, true);
    },
  },
  highlight_remove_stories: {
    run(ctx, a) {
      const h = ownHighlight(ctx, a.highlight_pk);
      for (const value of ids(a.removed_media_ids)) remove(h.stories, value.split('_')[0]);
      return highlight(ctx.world, h, true);
    },
  },
  highlight_edit: {
    run(ctx, a) {
      const h = ownHighlight(ctx, a.highlight_pk);
      if (str(a.title)) h.title = str(a.title);
      for (const pk of ownStories(ctx, a.added_media_ids)) if (!h.stories.includes(pk)) h.stories.push(pk);
      for (const value of ids(a.removed_media_ids)) remove(h.stories, value.split('_')[0]);
      const cover = record(a.cover);
      if (cover?.media_id) h.cover = ownStories(ctx, [cover.media_id])[0];
      return null;
    },
  },
  highlight_change_cover: {
    run(ctx, a) {
      const h = ownHighlight(ctx, a.highlight_pk);
      uploadFile(a.cover_path, 'PhotoNotUpload', 'cover');
      const me = ctx.me();
      const cover: StoryRec = {
        pk: nextId(ctx.world),
        owner: me.pk,
        takenAt: ctx.nowSec(),
        video: false,
        mentions: [],
        hashtags: [],
        locations: [],
        links: [],
        likers: new Set(),
        viewers: [],
        caption: 'cover',
      };
      ctx.world.stories.set(cover.pk, cover);
      me.archivedStories.unshift(cover.pk);
      h.cover = cover.pk;
      return highlight(ctx.world, h, true);
    },
  },
  highlight_delete: {
    run(ctx, a) {
      const h = ownHighlight(ctx, a.highlight_pk);
      ctx.world.highlights.delete(h.pk);
      remove(ctx.me().highlights, h.pk);
      return true;
    },
  },
};
