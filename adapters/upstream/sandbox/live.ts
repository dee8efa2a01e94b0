// The live sandbox: other users message the accounts in use, send them requests, like and comment
// on their posts and follow them. On a clock, each tick's happening for an account is decided by
// the seed, the tick's number and the account, ids included (so instances sharing a store, each with
// its own world, agree on what happened, and a restart never reuses an id); POST /sandbox/activity
// makes one happen now. Changes go through the world as the platform methods'
// own changes do, so every route (inbox, pending, activity inbox, followers) shows them.
import { createRng, hash32 } from './prng.js';
import type { World, LiveStory, UserRec } from './world/types.js';
import { addMessage, makeThread } from './world/social.js';
import { follow } from './world/users.js';
import { COMMENTS, MESSAGES } from './world/words.js';

export const LIVE_KINDS = ['message', 'request', 'like', 'comment', 'follow'] as const;
export type LiveKind = (typeof LIVE_KINDS)[number];

export interface LiveRequest {
  readonly kind: LiveKind;
  /** A user pk or username; chosen from the seed when absent. */
  readonly from?: string;
  readonly mediaPk?: string;
  readonly text?: string;
}

export interface Happened {
  readonly kind: LiveKind;
  readonly from: { readonly pk: string; readonly username: string };
  readonly thread_id?: string;
  readonly item_id?: string;
  readonly media_pk?: string;
  readonly comment_pk?: string;
  readonly at: string;
}

export class LiveError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

/** Makes one thing happen to `account` at `nowSec`, with choices drawn from `salt`. */
export function happen(world: World, account: string, request: LiveRequest, nowSec: number, salt: number): Happened {
  const me = world.users.get(account);
  if (!me) throw new LiveError('session', 'the account is not in the sandbox world');
  const rng = createRng(salt);
  const from = request.from ? userOf(world, request.from) : pickOther(world, me, rng, request.kind === 'request');
  if (from.pk === me.pk) throw new LiveError('from', 'a user cannot do this to their own account');
  const base = { kind: request.kind, from: { pk: from.pk, username: from.username }, at: new Date(nowSec * 1000).toISOString() };
  switch (request.kind) {
    case 'message':
    case 'request': {
      const thread = threadFor(world, me, from, request.kind === 'request', nowSec, rng);
      const message = addMessage(
        world,
        thread,
        { user: from.pk, ts: nowSec, type: 'text', text: request.text ?? rng.pick(MESSAGES), ref: null },
        rng.digits(19),
      );
      thread.state.get(me.pk)!.unread = true;
      return { ...base, thread_id: thread.id, item_id: message.id };
    }
    case 'like':
    case 'comment': {
      const media = mediaOf(world, me, request.mediaPk);
      const story: LiveStory = {
        pk: rng.digits(19),
        kind: request.kind === 'like' ? 'likes' : 'comments',
        actor: from.pk,
        at: nowSec,
        media: media.pk,
        text: '',
      };
      if (request.kind === 'like') {
        media.likers.add(from.pk);
        remember(world, me.pk, story);
        return { ...base, media_pk: media.pk };
      }
      const text = request.text ?? rng.pick(COMMENTS);
      const comment = {
        pk: rng.digits(18),
        media: media.pk,
        user: from.pk,
        text,
        createdAt: nowSec,
        repliedTo: null,
        replies: [],
        likers: new Set<string>(),
        pinned: false,
      };
      world.comments.set(comment.pk, comment);
      media.comments.push(comment.pk);
      remember(world, me.pk, { ...story, text, comment: comment.pk });
      return { ...base, media_pk: media.pk, comment_pk: comment.pk };
    }
    case 'follow': {
      follow(world, from.pk, me.pk);
      remember(world, me.pk, { pk: rng.digits(19), kind: 'new_follower', actor: from.pk, at: nowSec, media: null, text: '' });
      return base;
    }
  }
}

/** The tick's happening for an account: which kind, from whom, all from the seed, the tick and the account. */
export function tickRequest(world: World, account: string, tick: number): { request: LiveRequest; salt: number } {
  const salt = hash32(`${world.seed}:${tick}:${account}`);
  const rng = createRng(salt);
  const me = world.users.get(account);
  const kinds: LiveKind[] = me?.media.length ? [...LIVE_KINDS] : ['message', 'request', 'follow'];
  return { request: { kind: rng.pick(kinds) }, salt };
}

/** Stories kept per account: the activity inbox shows the newest. */
const KEEP = 200;

function remember(world: World, account: string, story: LiveStory): void {
  const list = world.activity.get(account) ?? [];
  list.push(story);
  if (list.length > KEEP) list.splice(0, list.length - KEEP);
  world.activity.set(account, list);
}

function userOf(world: World, given: string): UserRec {
  const pk = /^\d+$/.test(given) ? given : world.byUsername.get(given.replace(/^@/, '').toLowerCase());
  const user = pk ? world.users.get(pk) : undefined;
  if (!user) throw new LiveError('from', `no sandbox user "${given}"`);
  return user;
}

/** Another small-world user: one the account follows for a message, one it does not for a request. */
function pickOther(world: World, me: UserRec, rng: ReturnType<typeof createRng>, stranger: boolean): UserRec {
  const others = [...world.users.values()].filter((u) => u.pk !== me.pk && !me.blocked.has(u.pk));
  const fitting = others.filter((u) => me.following.has(u.pk) !== stranger);
  const pool = fitting.length ? fitting : others; // an account that follows nobody still gets messages
  if (!pool.length) throw new LiveError('from', 'no user in the world can do this');
  return rng.pick(pool);
}

/** The one-to-one thread with `from`; a request is a fresh thread in the account's pending folder. */
function threadFor(world: World, me: UserRec, from: UserRec, request: boolean, nowSec: number, rng: ReturnType<typeof createRng>) {
  if (!request) {
    for (const t of world.threads.values()) {
      const state = t.state.get(me.pk);
      if (!t.isGroup && t.users.length === 2 && t.users.includes(from.pk) && state && state.folder !== 'pending') return t;
    }
  }
  const thread = makeThread(world, rng, [from.pk, me.pk], '', nowSec);
  thread.state.get(me.pk)!.folder = request ? 'pending' : 'inbox';
  return thread;
}

function mediaOf(world: World, me: UserRec, given: string | undefined) {
  if (given) {
    const media = world.media.get(given);
    if (!media || media.owner !== me.pk) throw new LiveError('media_pk', `${given} is not a post of this account`);
    return media;
  }
  const newest = [...me.media]
    .map((pk) => world.media.get(pk)!)
    .filter((m) => m && !m.archived)
    .sort((a, b) => b.takenAt - a.takenAt)[0];
  if (!newest) throw new LiveError('media_pk', 'the account has no post to like or comment on');
  return newest;
}
