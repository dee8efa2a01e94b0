// Search: users, hashtags, places, music and the mixed top-search payloads.
import { str } from '../args.js';
import { hashtag, location, userShort } from '../records.js';
import { track } from '../records-direct.js';
import type { Ctx, MethodTable } from '../registry.js';
import type { TrackRec, UserRec } from '../world/types.js';
import { mediaList, visible } from './common.js';

const q = (value: unknown) => str(value, 'query').trim().toLowerCase().replace(/^[@#]/, '');

export function findUsers(ctx: Ctx, query: string, limit = 30): UserRec[] {
  const out: UserRec[] = [];
  for (const u of ctx.world.users.values()) {
    if (u.username.includes(query) || u.fullName.toLowerCase().includes(query)) out.push(u);
    if (out.length >= limit) break;
  }
  return out;
}

export function findTags(ctx: Ctx, query: string): string[] {
  return [...ctx.world.hashtags.keys()].filter((name) => name.includes(query)).slice(0, 30);
}

export function findTracks(ctx: Ctx, query: string): TrackRec[] {
  return [...ctx.world.tracks.values()].filter((t) => !query || t.title.toLowerCase().includes(query) || t.artist.toLowerCase().includes(query));
}

function places(ctx: Ctx, query: string) {
  return [...ctx.world.locations.values()].filter((l) => l.name.toLowerCase().includes(query) || l.city.toLowerCase().includes(query)).slice(0, 10);
}

function top(ctx: Ctx, query: string): Record<string, unknown> {
  return {
    users: findUsers(ctx, query, 10).map((u, position) => ({ position, user: userShort(u) })),
    hashtags: findTags(ctx, query).slice(0, 10).map((name, position) => ({ position, hashtag: hashtag(ctx.world, name) })),
    places: places(ctx, query).map((l, position) => ({ position, place: { location: location(l), title: l.name, subtitle: l.address } })),
    has_more: false, rank_token: `sandbox-${query}`, status: 'ok',
  };
}

function reels(ctx: Ctx, query: string): unknown[] {
  const pks = findTags(ctx, query).flatMap((name) => ctx.world.hashtags.get(name)!.media).filter((pk) => ctx.world.media.get(pk)?.kind === 'clip');
  return mediaList(ctx, visible(ctx, [...new Set(pks)]).slice(0, 12));
}

export const searchMethods: MethodTable = {
  search_users: { run: (ctx, a) => findUsers(ctx, q(a.query)).map(userShort) },
  search_hashtags: { run: (ctx, a) => findTags(ctx, q(a.query)).map((name) => hashtag(ctx.world, name)) },
  web_search_topsearch_hashtags: { run: (ctx, a) => findTags(ctx, q(a.query)).map((name) => hashtag(ctx.world, name)) },
  search_music: { run: (ctx, a) => findTracks(ctx, q(a.query)).slice(0, 20).map(track) },
  fbsearch_accounts_v2: { run: (ctx, a) => ({ users: findUsers(ctx, q(a.query)).map(userShort), has_more: false, page_token: null, status: 'ok' }) },
  fbsearch_topsearch_flat: {
    run(ctx, a) {
      const t = top(ctx, q(a.query));
      return [...(t.users as unknown[]), ...(t.hashtags as unknown[]), ...(t.places as unknown[])];
    },
  },
  fbsearch_topsearch_v2: { run: (ctx, a) => ({ ...top(ctx, q(a.query)), reels: reels(ctx, q(a.query)), next_max_id: null, reels_max_id: null }) },
  web_search_topsearch: { run: (ctx, a) => top(ctx, q(a.query)) },
  fbsearch_reels_v2: { run: (ctx, a) => ({ reels_serp_modules: [{ module_type: 'clips', clips: reels(ctx, q(a.query)).map((media) => ({ media })) }], has_more: false, reels_max_id: null, rank_token: `sandbox-${q(a.query)}`, status: 'ok' }) },
  fbsearch_item: { run: (ctx, a) => ({ ...top(ctx, q(a.query)), item_id: str(a.item_id, 'item_id'), search_surface: str(a.search_surface, 'search_surface') }) },
  fbsearch_keyword_typeahead: { run: (ctx, a) => typeahead(ctx, q(a.query)) },
  fbsearch_typeahead_stream: { run: (ctx, a) => ({ ...typeahead(ctx, q(a.query)), stream_rows: findUsers(ctx, q(a.query), 10).map((u) => ({ user: userShort(u) })) }) },
  fbsearch_typehead: { run: (ctx, a) => findUsers(ctx, q(a.query), 10).map((u) => ({ user: userShort(u) })) },
  fbsearch_recent: {
    run(ctx) {
      const me = ctx.me();
      const people = [...me.following].slice(0, 3).map((pk) => [0, userShort(ctx.world.users.get(pk)!)]);
      const tags = [...me.hashtags].slice(0, 2).map((name) => [1, hashtag(ctx.world, name)]);
      return [...people, ...tags];
    },
  },
};

function typeahead(ctx: Ctx, query: string): Record<string, unknown> {
  return { list: [...findTags(ctx, query).slice(0, 5).map((name) => ({ keyword: { name, id: name } })), ...findUsers(ctx, query, 5).map((u) => ({ user: userShort(u) }))], status: 'ok' };
}
