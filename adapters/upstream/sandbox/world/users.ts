// Users and the follow graph. The fixed accounts have fixed pks whatever the seed, so examples
// in the documentation work on every world.
import type { Rng } from '../prng.js';
import type { UserRec, World } from './types.js';
import { CATEGORIES, CITIES, FIRST, LAST, SUFFIX, TOPICS } from './words.js';

export const PASSWORD = 'demo-password';
export const TOTP_SEED = 'JBSWY3DPEHPK3PXP';
export const CHALLENGE_CODE = '123456';
export const FIXED = {
  demo: '5000000001',
  demo_2fa: '5000000002',
  demo_challenge: '5000000003',
  demo_throttled: '5000000004',
} as const;
export type FixedName = keyof typeof FIXED;
export const USER_COUNT = 320;

export function blankUser(pk: string, username: string, fullName: string): UserRec {
  return {
    pk,
    username,
    fullName,
    isPrivate: false,
    isVerified: false,
    isBusiness: false,
    biography: '',
    externalUrl: null,
    category: null,
    bioLinks: [],
    email: `${username.replace(/[^a-z0-9]/g, '')}@example.com`,
    phone: '',
    birthday: '1990-01-01',
    gender: 3,
    city: '',
    country: 'US',
    joined: 0,
    picVersion: 1,
    followers: new Set(),
    following: new Set(),
    requests: new Set(),
    media: [],
    tagged: [],
    stories: [],
    archivedStories: [],
    highlights: [],
    pinned: [],
    pinnedClips: [],
    closeFriends: new Set(),
    blocked: new Set(),
    mutedPosts: new Set(),
    mutedStories: new Set(),
    notify: new Map(),
    liked: [],
    saved: [],
    collections: [],
    hashtags: new Set(),
    notificationSettings: new Map(),
    notificationsMutedUntil: 0,
    totpEnabled: false,
    totpSeed: null,
    password: '',
  };
}

export function addUser(world: World, user: UserRec): void {
  world.users.set(user.pk, user);
  world.byUsername.set(user.username, user.pk);
}

export function generateUsers(world: World, rng: Rng): void {
  for (const [name, pk] of Object.entries(FIXED)) addUser(world, fixedAccount(name as FixedName, pk, world.epoch));
  const taken = new Set<string>(Object.keys(FIXED));
  while (world.users.size < USER_COUNT) {
    const user = randomUser(rng, taken, world.epoch);
    taken.add(user.username);
    if (!world.users.has(user.pk)) addUser(world, user);
  }
}

function fixedAccount(name: FixedName, pk: string, epoch: number): UserRec {
  const user = blankUser(pk, name, name === 'demo' ? 'Demo Account' : `Demo ${name.slice(5)}`);
  user.password = PASSWORD;
  user.biography = 'The socialgate sandbox account. Everything here is generated.';
  user.externalUrl = 'https://example.com/socialgate';
  user.bioLinks = [{ link_id: `${pk}1`, url: 'https://example.com/socialgate', title: 'socialgate' }];
  user.phone = '+15555550100';
  user.city = 'Lisbon';
  user.country = 'PT';
  user.joined = epoch - 4 * 365 * 86400;
  if (name === 'demo_2fa') {
    user.totpEnabled = true;
    user.totpSeed = TOTP_SEED;
  }
  return user;
}

function randomUser(rng: Rng, taken: Set<string>, epoch: number): UserRec {
  const first = rng.pick(FIRST);
  const last = rng.pick(LAST);
  let username = `${first}${rng.pick(['', '.', '_'])}${last}${rng.pick(SUFFIX)}`;
  while (taken.has(username)) username = `${username}${rng.int(0, 9)}`;
  const user = blankUser(rng.digits(rng.int(8, 11)), username, `${cap(first)} ${cap(last)}`);
  const [city, country] = rng.pick(CITIES);
  user.city = city;
  user.country = country;
  user.isPrivate = rng.chance(0.15);
  user.isVerified = rng.chance(0.05);
  user.isBusiness = rng.chance(0.2);
  user.category = user.isBusiness ? rng.pick(CATEGORIES) : null;
  user.biography = `${cap(rng.pick(TOPICS))} and ${rng.pick(TOPICS)} in ${city}.`;
  if (rng.chance(0.3)) user.externalUrl = `https://example.com/${username.replace(/[^a-z0-9]/g, '')}`;
  user.gender = rng.int(1, 3);
  user.birthday = `${rng.int(1970, 2004)}-${pad(rng.int(1, 12))}-${pad(rng.int(1, 28))}`;
  user.joined = epoch - rng.int(30, 3000) * 86400;
  return user;
}

/** Everyone follows a few dozen others; demo gets enough followers, following and requests to page. */
export function generateGraph(world: World, rng: Rng): void {
  const pks = [...world.users.keys()];
  const others = pks.filter((pk) => !Object.values(FIXED).includes(pk as never));
  for (const pk of others) for (const target of rng.sample(pks, rng.int(5, 40))) follow(world, pk, target);
  const demo = FIXED.demo;
  for (const pk of rng.sample(others, 150)) follow(world, pk, demo);
  for (const pk of rng.sample(others, 130)) follow(world, demo, pk);
  const strangers = others.filter((pk) => !world.users.get(demo)!.followers.has(pk));
  for (const pk of rng.sample(strangers, 25)) requestFollow(world, pk, demo);
  for (const name of ['demo_2fa', 'demo_challenge', 'demo_throttled'] as const) {
    for (const pk of rng.sample(others, 20)) follow(world, pk, FIXED[name]);
    for (const pk of rng.sample(others, 20)) follow(world, FIXED[name], pk);
  }
  const me = world.users.get(demo)!;
  for (const pk of rng.sample([...me.following], 8)) me.closeFriends.add(pk);
}

// Each follow and follow request keeps when it was made, as a world-wide sequence: the lists of
// followers, following and requests page in that order, keyed on it (see paging.ts).
const followEdge = (from: string, to: string) => `f${from}>${to}`;
const requestEdge = (from: string, to: string) => `r${from}>${to}`;

export function follow(world: World, from: string, to: string): void {
  if (from === to) return;
  const source = world.users.get(from)!;
  if (!source.following.has(to)) world.since.set(followEdge(from, to), ++world.counters.edge);
  source.following.add(to);
  world.users.get(to)!.followers.add(from);
}

export function unfollow(world: World, from: string, to: string): void {
  world.users.get(from)?.following.delete(to);
  world.users.get(to)?.followers.delete(from);
  world.since.delete(followEdge(from, to));
}

/** `from` asks to follow the private account `to`. */
export function requestFollow(world: World, from: string, to: string): void {
  const target = world.users.get(to)!;
  if (!target.requests.has(from)) world.since.set(requestEdge(from, to), ++world.counters.edge);
  target.requests.add(from);
}

export const followedSince = (world: World, from: string, to: string): number => world.since.get(followEdge(from, to)) ?? 0;
export const requestedSince = (world: World, from: string, to: string): number => world.since.get(requestEdge(from, to)) ?? 0;

const cap = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
const pad = (n: number) => String(n).padStart(2, '0');
