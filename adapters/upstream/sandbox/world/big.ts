// The big accounts, for work that only matters at scale (jobs that collect whole lists): an
// account with 50,000 followers and a post of it with 5,000 comments. The account and the post are
// small records made at start; their followers and comments are made on first use, and the
// followers themselves are never stored: each is made from its pk when asked for (UserMap). So
// start-up time and memory stay as they were for every world that never reads them.
import type { CommentRec, MediaRec, UserRec, World } from './types.js';
import { addUser, blankUser } from './users.js';
import { COMMENTS } from './words.js';

export const BIG = {
  pk: '5000000100',
  username: 'sandbox.crowd',
  followers: 50_000,
  post: '3900000000000000100',
  comments: 5_000,
} as const;

/** Crowd members' pks: CROWD_BASE + 1 ... CROWD_BASE + BIG.followers (outside generated pks' 8-11 random digits' usual range and every fixed one). */
const CROWD_BASE = 6_100_000_000;
const DAY = 86400;

export function isCrowd(pk: string): boolean {
  const n = Number(pk);
  return /^\d{10}$/.test(pk) && n > CROWD_BASE && n <= CROWD_BASE + BIG.followers;
}

/** A crowd member, made from its pk alone: the same record every time. */
export function crowdMember(pk: string, epoch: number): UserRec {
  const n = Number(pk) - CROWD_BASE;
  const user = blankUser(pk, `crowd.member.${n}`, `Crowd Member ${n}`);
  user.joined = epoch - (n % 3000) * DAY;
  user.following.add(BIG.pk);
  return user;
}

/** World users, where crowd members exist without being stored (they are not iterated either). */
export class UserMap extends Map<string, UserRec> {
  epoch = 0;
  override get(pk: string): UserRec | undefined {
    return super.get(pk) ?? (isCrowd(pk) ? crowdMember(pk, this.epoch) : undefined);
  }
  override has(pk: string): boolean {
    return super.has(pk) || isCrowd(pk);
  }
}

export function generateBig(world: World): void {
  if (world.users instanceof UserMap) world.users.epoch = world.epoch;
  const user = blankUser(BIG.pk, BIG.username, 'Sandbox Crowd');
  Object.assign(user, {
    biography: 'A big account of the sandbox: 50,000 followers, a post with 5,000 comments.',
    isVerified: true,
    joined: world.epoch - 5 * 365 * DAY,
  });
  lazily(user, 'followers', () => crowdFollowers(world));
  addUser(world, user);
  const post: MediaRec = {
    pk: BIG.post,
    owner: BIG.pk,
    kind: 'photo',
    takenAt: world.epoch - 3 * DAY,
    caption: 'Say hello in the comments #sandbox',
    title: '',
    usertags: [],
    location: null,
    likers: new Set(),
    comments: [],
    commentsDisabled: false,
    archived: false,
    pinned: false,
    clipPinned: false,
    duration: 0,
    plays: 0,
    children: [],
    hashtags: ['sandbox'],
    track: null,
  };
  lazily(post, 'comments', () => crowdComments(world, post));
  world.media.set(post.pk, post);
  user.media.push(post.pk);
}

/** The followers, each follow recorded as made in pk order (the order the list pages in). */
function crowdFollowers(world: World): Set<string> {
  const followers = new Set<string>();
  for (let n = 1; n <= BIG.followers; n++) {
    const pk = String(CROWD_BASE + n);
    followers.add(pk);
    world.since.set(`f${pk}>${BIG.pk}`, ++world.counters.edge);
  }
  return followers;
}

function crowdComments(world: World, post: MediaRec): string[] {
  const pks: string[] = [];
  for (let n = 1; n <= BIG.comments; n++) {
    const comment: CommentRec = {
      pk: String(17_900_000_000_000_000n + BigInt(n)),
      media: post.pk,
      user: String(CROWD_BASE + n),
      text: COMMENTS[n % COMMENTS.length],
      createdAt: post.takenAt + 60 + n * 30,
      repliedTo: null,
      replies: [],
      likers: new Set(),
      pinned: false,
    };
    world.comments.set(comment.pk, comment);
    pks.push(comment.pk);
  }
  return pks;
}

/** A property made by `make` on first read (or replaced by a first write), then a plain property. */
function lazily<T extends object, K extends keyof T>(target: T, key: K, make: () => T[K]): void {
  const settle = (value: T[K]) => Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(target, key, {
    configurable: true,
    enumerable: true,
    get: () => {
      const value = make();
      settle(value);
      return value;
    },
    set: settle,
  });
}
