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

export function matchUsers(ctx: Ctx, q: string): Match[] {
  const out: Match[] = [];
  let at = 0n;
  for (const u of ctx.world.users.values()) {
    at++;
    if (u.username.includes(q) || u.fullName.toLowerCase().includes(q)) out.push({ kind: 'user', id: u.pk, rank: [group(u.username, q), at] });
  }
  return out.sort((a, b) => byRank(a, b));
}

export function matchTags(ctx: Ctx, q: string): Match[] {
  const out: Match[] = [];
  let at = 0n;
  for (const name of ctx.world.hashtags.keys()) {
    at++;
    if (name.includes(q)) out.push({ kind: 'hashtag', id: name, rank: [group(name, q), at] });
  }
  return out.sort((a, b) => byRank(a, b));
}

export function matchPlaces(ctx: Ctx, q: string): Match[] {
  const out: Match[] = [];
  let at = 0n;
  for (const l of ctx.world.locations.values()) {
    at++;
    if (l.name.toLowerCase().includes(q) || l.city.toLowerCase().includes(q)) out.push({ kind: 'place', id: l.pk, rank: [group(l.name.toLowerCase(), q), at] });
  }
  return out.sort((a, b) => byRank(a, b));
}

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
