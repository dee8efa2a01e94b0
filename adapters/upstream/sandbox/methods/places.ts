// Hashtags, locations and collections, with their recent and top media.
import { bool, id, int, num, str } from '../args.js';
import { fail, notFound } from '../errors.js';
import { findHashtag, findLocation } from '../lookup.js';
import { after, big, pageBy, type SortKey } from '../paging.js';
import { hashtag, location } from '../records.js';
import { ALL_POSTS, collection } from '../records-direct.js';
import type { Ctx, MethodTable } from '../registry.js';
import type { CollectionRec, LocationRec, MediaRec } from '../world/types.js';
import { mediaList, newestFirst, visible } from './common.js';

/**
 * tab_key 'top' ranks by likes; anything else ('recent', '') is newest first. A top post whose
 * likes change mid-walk moves in the ranking, as on the platform.
 */
function tabKey(ctx: Ctx, tab: string): (pk: string) => SortKey {
  if (tab !== 'top') return newestFirst(ctx);
  return (pk) => [-BigInt(ctx.world.media.get(pk)?.likers.size ?? 0), big(pk)];
}

function chunk(ctx: Ctx, pks: readonly string[], a: Readonly<Record<string, unknown>>, size: number): [unknown[], string] {
  const [items, next] = pageBy(visible(ctx, pks), tabKey(ctx, str(a.tab_key)), a.max_id, int(a.max_amount) || size);
  return [mediaList(ctx, items), next];
}

function near(ctx: Ctx, lat: number, lng: number): LocationRec[] {
  const dist = (l: LocationRec) => (l.lat - lat) ** 2 + (l.lng - lng) ** 2;
  return [...ctx.world.locations.values()].sort((a, b) => dist(a) - dist(b)).slice(0, 10);
}

function byName(ctx: Ctx, query: string): LocationRec[] {
  const q = query.trim().toLowerCase();
  return [...ctx.world.locations.values()].filter((l) => l.name.toLowerCase().includes(q) || l.city.toLowerCase().includes(q));
}

function myCollection(ctx: Ctx, value: unknown): CollectionRec {
  const key = id(value, 'collection_pk');
  const me = ctx.me();
  if (key === ALL_POSTS || key === '') return { pk: ALL_POSTS, owner: me.pk, name: 'All posts', media: me.saved };
  const c = ctx.world.collections.get(key);
  return c && c.owner === me.pk ? c : notFound.collection(key);
}

/** Every collection of the account, "All posts" first as the platform lists them. */
function myCollections(ctx: Ctx): CollectionRec[] {
  return [myCollection(ctx, ALL_POSTS), ...ctx.me().collections.map((pk) => ctx.world.collections.get(pk)!)];
}

function collectionByName(ctx: Ctx, name: string): CollectionRec {
  const wanted = name.trim().toLowerCase();
  return myCollections(ctx).find((c) => c.name.toLowerCase() === wanted) ?? fail('CollectionNotFound', `Collection "${name}" not found`);
}

export const placeMethods: MethodTable = {
  hashtag_info: { run: (ctx, a) => hashtag(ctx.world, findHashtag(ctx, a.name)) },
  hashtag_follow: {
    run(ctx, a) {
      const name = findHashtag(ctx, a.hashtag);
      if (bool(a.unfollow)) ctx.me().hashtags.delete(name);
      else ctx.me().hashtags.add(name);
      return true;
    },
  },
  hashtag_unfollow: { run: (ctx, a) => ctx.me().hashtags.delete(findHashtag(ctx, a.hashtag)) || true },
  hashtag_medias_v1_chunk: { run: (ctx, a) => chunk(ctx, ctx.world.hashtags.get(findHashtag(ctx, a.name))!.media, a, 27) },
  hashtag_medias_reels_v1: {
    run(ctx, a) {
      const pks = visible(ctx, ctx.world.hashtags.get(findHashtag(ctx, a.name))!.media).filter((pk) => ctx.world.media.get(pk)!.kind === 'clip');
      return mediaList(ctx, int(a.amount) > 0 ? pks.slice(0, int(a.amount)) : pks);
    },
  },
  location_info: { run: (ctx, a) => location(findLocation(ctx, a.location_pk)) },
  location_medias_v1_chunk: { run: (ctx, a) => chunk(ctx, findLocation(ctx, a.location_pk).media, a, 63) },
  location_guides_v1: {
    run(ctx, a) {
      const loc = findLocation(ctx, a.location_pk);
      const first = visible(ctx, loc.media)[0];
      if (!first) return [];
      return [
        { id: `2${loc.pk}`, title: `Around ${loc.name}`, description: `Posts near ${loc.name}`, cover_media: mediaList(ctx, [first])[0], feedback_item: null },
      ];
    },
  },
  location_search: { run: (ctx, a) => near(ctx, num(a.lat, 'lat'), num(a.lng, 'lng')).map(location) },
  location_search_name: { run: (ctx, a) => byName(ctx, str(a.name, 'name')).map(location) },
  fbsearch_places: {
    run(ctx, a) {
      const found = byName(ctx, str(a.query, 'query'));
      return (found.length ? found : near(ctx, num(a.lat, 'lat'), num(a.lng, 'lng'))).map(location);
    },
  },
  collections: { run: (ctx) => myCollections(ctx).map(collection) },
  collection_medias: {
    run(ctx, a) {
      const c = myCollection(ctx, a.collection_pk);
      const items = c.media.map((pk) => ctx.world.media.get(pk)).filter((m): m is MediaRec => Boolean(m));
      return mediaList(
        ctx,
        after(items, a.last_media_pk, int(a.amount)).map((m) => m.pk),
      );
    },
  },
  collection_medias_by_name: { run: (ctx, a) => mediaList(ctx, collectionByName(ctx, str(a.name, 'name')).media) },
  collection_pk_by_name: { run: (ctx, a) => collectionByName(ctx, str(a.name, 'name')).pk },
};
