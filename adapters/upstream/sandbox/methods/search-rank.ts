// What a search query matches and in which order: an exact name first, then names that start
// with the query, then any other match; within a group, in the world's own order. Each match
// carries that order as its sort key, so search results page with keyed cursors like any list.
import { hashtag, location, userShort } from '../records.js';
import type { SortKey } from '../paging.js';
import type { Ctx } from '../registry.js';
import type { LocationRec, TrackRec, UserRec } from '../world/types.js';

export type Kind = 'user' | 'hashtag' | 'place';
const KIND_ORDER: Readonly<Record<Kind, bigint>> = { user: 0n, hashtag: 1n, place: 2n };

export interface Match {
  readonly kind: Kind;
  readonly id: string;
  /** [relevance group, position in the world]; blended lists put the kind between the two. */
  readonly rank: readonly [bigint, bigint];
}

export const query = (text: string) => text.trim().toLowerCase().replace(/^[@#]/, '');

function group(name: string, q: string): bigint {
  if (name === q) return 0n;
  return name.startsWith(q) ? 1n : 2n;
}

/** One kind's matches: each item's id, the texts a query may match, and the name ranked against it. */
function matchAll<T>(kind: Kind, items: Iterable<T>, q: string, of: (item: T) => { id: string; texts: readonly string[]; name: string }): Match[] {
  const out: Match[] = [];
  let at = 0n;
  for (const item of items) {
    at++;
    const { id, texts, name } = of(item);
    if (texts.some((text) => text.includes(q))) out.push({ kind, id, rank: [group(name, q), at] });
  }
  return out.sort(byRank);
}

export const matchUsers = (ctx: Ctx, q: string): Match[] =>
  matchAll('user', ctx.world.users.values(), q, (u) => ({ id: u.pk, texts: [u.username, u.fullName.toLowerCase()], name: u.username }));

export const matchTags = (ctx: Ctx, q: string): Match[] => matchAll('hashtag', ctx.world.hashtags.keys(), q, (name) => ({ id: name, texts: [name], name }));

export const matchPlaces = (ctx: Ctx, q: string): Match[] =>
  matchAll('place', ctx.world.locations.values(), q, (l) => ({ id: l.pk, texts: [l.name.toLowerCase(), l.city.toLowerCase()], name: l.name.toLowerCase() }));

function byRank(a: Match, b: Match): number {
  if (a.rank[0] !== b.rank[0]) return a.rank[0] < b.rank[0] ? -1 : 1;
  return a.rank[1] < b.rank[1] ? -1 : a.rank[1] > b.rank[1] ? 1 : 0;
}

/** One kind's order. */
export const rankKey = (m: Match): SortKey => [m.rank[0], m.rank[1]];
/** Several kinds blended: by relevance first, users before hashtags before places within it. */
export const blendedKey = (m: Match): SortKey => [m.rank[0], KIND_ORDER[m.kind], m.rank[1]];

export const usersOf = (ctx: Ctx, matches: readonly Match[]): UserRec[] => matches.filter((m) => m.kind === 'user').map((m) => ctx.world.users.get(m.id)!);
export const placeOf = (ctx: Ctx, pk: string): LocationRec => ctx.world.locations.get(pk)!;

/** The platform's blended search payload: users, hashtags and places, each with its position in the page. */
export function blended(ctx: Ctx, matches: readonly Match[]): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = { users: [], hashtags: [], places: [] };
  matches.forEach((m, position) => {
    if (m.kind === 'user') out.users.push({ position, user: userShort(ctx.world.users.get(m.id)!) });
    else if (m.kind === 'hashtag') out.hashtags.push({ position, hashtag: hashtag(ctx.world, m.id) });
    else {
      const l = placeOf(ctx, m.id);
      out.places.push({ position, place: { location: location(l), title: l.name, subtitle: l.address } });
    }
  });
  return out;
}

export function findTracks(ctx: Ctx, q: string): TrackRec[] {
  return [...ctx.world.tracks.values()].filter((t) => !q || t.title.toLowerCase().includes(q) || t.artist.toLowerCase().includes(q));
}
