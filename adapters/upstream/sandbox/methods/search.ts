// Search: users, hashtags, places, music and the mixed top-search payloads. The paged ones take
// the platform's cursors (page_token, next_max_id, reels_max_id) and answer the next one with
// has_more; count bounds a page where the upstream takes it.
import { int, optStr, str } from '../args.js';
import { newestFirst, mediaList, visible } from './common.js';
import { pageBy, sortBy, take } from '../paging.js';
import { hashtag, userShort } from '../records.js';
import { track } from '../records-direct.js';
import type { Args, Ctx, MethodTable } from '../registry.js';
import { blended, blendedKey, findTracks, matchPlaces, matchTags, matchUsers, query, rankKey, usersOf, type Match } from './search-rank.js';

export { findTracks } from './search-rank.js';

const q = (value: unknown) => query(str(value, 'query'));
/** The platform's page sizes: 30 accounts or top results (its count), 12 reels. */
const PAGE = 30;
const REELS_PAGE = 12;
/** The unpaged top-search payloads show this many of each kind. */
const TOP_EACH = 10;

const rankToken = (given: unknown, text: string) => optStr(given) || `sandbox-${text}`;
const size = (count: unknown) => (int(count, 'count') > 0 ? int(count, 'count') : PAGE);
const everything = (ctx: Ctx, text: string): Match[] => [...matchUsers(ctx, text), ...matchTags(ctx, text), ...matchPlaces(ctx, text)];

/** The web and flat top searches: the first few of each kind, no cursor. */
function top(ctx: Ctx, text: string): Record<string, unknown> {
  const firsts = [...matchUsers(ctx, text).slice(0, TOP_EACH), ...matchTags(ctx, text).slice(0, TOP_EACH), ...matchPlaces(ctx, text).slice(0, TOP_EACH)];
  return { ...blended(ctx, firsts), has_more: everything(ctx, text).length > firsts.length, rank_token: `sandbox-${text}`, status: 'ok' };
}

/** Reels under the hashtags the query matches, newest first, page by page. */
function reels(ctx: Ctx, text: string, cursor: unknown): [unknown[], string] {
  const pks = matchTags(ctx, text)
    .flatMap((m) => ctx.world.hashtags.get(m.id)!.media)
    .filter((pk) => ctx.world.media.get(pk)?.kind === 'clip');
  const [page, next] = pageBy(visible(ctx, [...new Set(pks)]), newestFirst(ctx), cursor, REELS_PAGE);
  return [mediaList(ctx, page), next];
}

const PER_SURFACE: Readonly<Partial<Record<string, (ctx: Ctx, text: string) => Match[]>>> = {
  user_serp: matchUsers,
  hashtag_serp: matchTags,
  places_serp: matchPlaces,
  place_serp: matchPlaces,
};

/** One search surface's results page: a single kind for the user, hashtag and place surfaces, else blended with reels. */
function searchItem(ctx: Ctx, a: Args): Record<string, unknown> {
  const text = q(a.query);
  const surface = str(a.search_surface, 'search_surface');
  const single = PER_SURFACE[surface];
  const cursor = optStr(a.next_max_id) ?? optStr(a.page_token) ?? optStr(a.paging_token);
  const [entries, next] = pageBy(single ? single(ctx, text) : everything(ctx, text), single ? rankKey : blendedKey, cursor, size(a.count));
  const [clips, reelsNext] = single ? [[], ''] : reels(ctx, text, a.reels_max_id);
  return {
    ...blended(ctx, entries),
    reels: clips,
    has_more: next !== '',
    next_max_id: next || null,
    page_token: next || null,
    page_index: (a.page_index === null || a.page_index === undefined ? 0 : int(a.page_index, 'page_index')) + 1,
    has_more_reels: reelsNext !== '',
    reels_max_id: reelsNext || null,
    rank_token: rankToken(a.rank_token, text),
    item_id: str(a.item_id, 'item_id'),
    search_surface: surface,
    status: 'ok',
  };
}

/** Keyword suggestions and accounts, blended by relevance, at most `count` rows. */
function typeahead(ctx: Ctx, text: string, count: number): Record<string, unknown> {
  const matches = [...matchUsers(ctx, text), ...matchTags(ctx, text)];
  const rows = take(sortBy(matches, blendedKey), count);
  const list = rows.map((m) => (m.kind === 'user' ? { user: userShort(ctx.world.users.get(m.id)!) } : { keyword: { name: m.id, id: m.id } }));
  return { list, has_more: rows.length < matches.length, status: 'ok' };
}

export const searchMethods: MethodTable = {
  search_users: { run: (ctx, a) => usersOf(ctx, matchUsers(ctx, q(a.query)).slice(0, PAGE)).map(userShort) },
  search_hashtags: {
    run: (ctx, a) =>
      matchTags(ctx, q(a.query))
        .slice(0, PAGE)
        .map((m) => hashtag(ctx.world, m.id)),
  },
  web_search_topsearch_hashtags: {
    run: (ctx, a) =>
      matchTags(ctx, q(a.query))
        .slice(0, TOP_EACH)
        .map((m) => hashtag(ctx.world, m.id)),
  },
  search_music: { run: (ctx, a) => findTracks(ctx, q(a.query)).slice(0, 20).map(track) },
  fbsearch_accounts_v2: {
    run(ctx, a) {
      const [page, next] = pageBy(matchUsers(ctx, q(a.query)), rankKey, a.page_token, PAGE);
      return { users: usersOf(ctx, page).map(userShort), has_more: next !== '', page_token: next || null, status: 'ok' };
    },
  },
  fbsearch_topsearch_flat: {
    run(ctx, a) {
      const t = top(ctx, q(a.query));
      return [...(t.users as unknown[]), ...(t.hashtags as unknown[]), ...(t.places as unknown[])];
    },
  },
  fbsearch_topsearch_v2: {
    run(ctx, a) {
      const text = q(a.query);
      const [entries, next] = pageBy(everything(ctx, text), blendedKey, a.next_max_id, PAGE);
      const [clips, reelsNext] = reels(ctx, text, a.reels_max_id);
      return {
        ...blended(ctx, entries),
        reels: clips,
        has_more: next !== '',
        next_max_id: next || null,
        has_more_reels: reelsNext !== '',
        reels_max_id: reelsNext || null,
        rank_token: rankToken(a.rank_token, text),
        status: 'ok',
      };
    },
  },
  web_search_topsearch: { run: (ctx, a) => top(ctx, q(a.query)) },
  fbsearch_reels_v2: {
    run(ctx, a) {
      const text = q(a.query);
      const [clips, next] = reels(ctx, text, a.reels_max_id);
      return {
        reels_serp_modules: [{ module_type: 'clips', clips: clips.map((media) => ({ media })) }],
        has_more: next !== '',
        reels_max_id: next || null,
        rank_token: rankToken(a.rank_token, text),
        status: 'ok',
      };
    },
  },
  fbsearch_item: { run: (ctx, a) => searchItem(ctx, a) },
  fbsearch_keyword_typeahead: { run: (ctx, a) => typeahead(ctx, q(a.query), size(a.count)) },
  fbsearch_typeahead_stream: {
    run(ctx, a) {
      const text = q(a.query);
      const rows = take(usersOf(ctx, matchUsers(ctx, text)), size(a.count)).map((u) => ({ user: userShort(u) }));
      return { ...typeahead(ctx, text, size(a.count)), stream_rows: rows };
    },
  },
  fbsearch_typehead: { run: (ctx, a) => take(usersOf(ctx, matchUsers(ctx, q(a.query))), TOP_EACH).map((u) => ({ user: userShort(u) })) },
  fbsearch_recent: {
    run(ctx) {
      const me = ctx.me();
      const people = [...me.following].slice(0, 3).map((pk) => [0, userShort(ctx.world.users.get(pk)!)]);
      // Every followed hashtag, the most recently followed first.
      const tags = [...me.hashtags]
        .reverse()
        .filter((name) => ctx.world.hashtags.has(name))
        .map((name) => [1, hashtag(ctx.world, name)]);
      return [...people, ...tags];
    },
  },
};
