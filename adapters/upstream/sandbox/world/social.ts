// Stories, highlights, collections, notes and direct threads around the fixed accounts.
import type { Rng } from '../prng.js';
import type { Folder, MessageRec, MessageType, StoryRec, ThreadRec, World } from './types.js';
import { urls } from '../codes.js';
import { fitBefore } from './time.js';
import { FIXED } from './users.js';
import { MESSAGES, PHRASES } from './words.js';

export function generateStories(world: World, rng: Rng): void {
  const demo = world.users.get(FIXED.demo)!;
  const tellers = [demo.pk, ...rng.sample([...demo.following], 40)];
  for (const owner of tellers) {
    const user = world.users.get(owner)!;
    const active = owner === demo.pk ? 4 : rng.int(1, 4);
    for (let i = 0; i < active; i++) user.stories.unshift(makeStory(world, rng, owner, world.epoch - rng.int(1, 20) * 3600).pk);
    const archived = owner === demo.pk ? 30 : rng.int(0, 6);
    for (let i = 0; i < archived; i++) user.archivedStories.push(makeStory(world, rng, owner, world.epoch - (2 + i * 3) * 86400).pk);
    user.stories.sort((a, b) => world.stories.get(a)!.takenAt - world.stories.get(b)!.takenAt);
    if (user.archivedStories.length >= 3) makeHighlights(world, rng, owner, owner === demo.pk ? 5 : rng.int(1, 2));
  }
}

function makeStory(world: World, rng: Rng, owner: string, takenAt: number): StoryRec {
  const others = [...world.users.get(owner)!.followers];
  const story: StoryRec = {
    pk: `3${rng.digits(18)}`,
    owner,
    takenAt,
    video: rng.chance(0.3),
    caption: rng.pick(PHRASES),
    mentions: rng.chance(0.3) && others.length ? [rng.pick(others)] : [],
    hashtags: rng.chance(0.3) ? [rng.pick([...world.hashtags.keys()])] : [],
    locations: rng.chance(0.2) ? [rng.pick([...world.locations.keys()])] : [],
    links: rng.chance(0.1) ? ['https://example.com/story-link'] : [],
    likers: new Set(rng.sample(others, rng.int(0, 5))),
    viewers: rng.sample(others, Math.min(others.length, rng.int(0, 80))),
  };
  world.stories.set(story.pk, story);
  return story;
}

function makeHighlights(world: World, rng: Rng, owner: string, count: number): void {
  const user = world.users.get(owner)!;
  const titles = ['Travel', 'Food', 'Friends', 'Work', 'Best of', 'Summer', 'Pets'];
  for (let i = 0; i < count; i++) {
    const stories = rng.sample(user.archivedStories, rng.int(2, Math.min(6, user.archivedStories.length)));
    const pk = rng.digits(17);
    world.highlights.set(pk, {
      pk,
      owner,
      title: titles[i % titles.length],
      stories,
      cover: stories[0],
      createdAt: world.epoch - rng.int(10, 300) * 86400,
      pinned: i === 0,
    });
    user.highlights.push(pk);
  }
}

export function generateCollections(world: World, rng: Rng): void {
  const demo = world.users.get(FIXED.demo)!;
  const pool = [...world.media.values()].filter((m) => m.owner !== demo.pk).map((m) => m.pk);
  demo.saved = rng.sample(pool, 30);
  for (const name of ['Inspiration', 'Recipes', 'Places to go']) {
    const pk = rng.digits(17);
    world.collections.set(pk, { pk, owner: demo.pk, name, media: rng.sample(demo.saved, rng.int(4, 12)) });
    demo.collections.push(pk);
  }
}

export function generateNotes(world: World, rng: Rng): void {
  const demo = world.users.get(FIXED.demo)!;
  for (const user of rng.sample([...demo.following], 12)) {
    const id = rng.digits(17);
    world.notes.set(id, {
      id,
      user,
      text: rng.pick(PHRASES),
      audience: rng.pick([0, 1]),
      createdAt: world.epoch - rng.int(1, 20) * 3600,
      style: 0,
      track: null,
      seenBy: new Set(),
    });
  }
}

const BOXES: readonly [Folder, number][] = [
  ['inbox', 36],
  ['pending', 8],
  ['spam', 4],
];

export function generateThreads(world: World, rng: Rng): void {
  const demo = world.users.get(FIXED.demo)!;
  const friends = [...demo.following];
  const strangers = [...world.users.keys()].filter((pk) => pk !== demo.pk && !demo.following.has(pk));
  for (const [folder, count] of BOXES) {
    for (let i = 0; i < count; i++) {
      const group = folder === 'inbox' && i % 6 === 5;
      const others = group ? rng.sample(friends, rng.int(2, 5)) : [rng.pick(folder === 'inbox' ? friends : strangers)];
      const thread = makeThread(world, rng, [demo.pk, ...others], group ? `Group ${i}` : '', world.epoch - rng.int(100, 90 * 86400));
      thread.state.get(demo.pk)!.folder = folder;
      const messages = folder === 'inbox' && i === 0 ? 45 : rng.int(1, 25);
      fillThread(world, rng, thread, messages, folder === 'inbox' ? null : others[0]);
    }
  }
}

export function makeThread(world: World, rng: Rng | null, users: string[], title: string, createdAt: number): ThreadRec {
  const id = rng ? `340282366841710${rng.digits(24)}` : nextId(world, '340282366841710300949128');
  const thread: ThreadRec = {
    id,
    pk: rng ? `1${rng.digits(16)}` : nextId(world, '1'),
    users,
    admin: users[0],
    title,
    isGroup: users.length > 2,
    createdAt,
    messages: [],
    state: new Map(users.map((u) => [u, { folder: 'inbox' as Folder, muted: false, vcMuted: false, unread: false, lastSeen: null }])),
  };
  world.threads.set(id, thread);
  return thread;
}

function fillThread(world: World, rng: Rng, thread: ThreadRec, count: number, onlySender: string | null): void {
  let at = thread.createdAt;
  const media = [...world.media.keys()];
  for (let i = 0; i < count; i++) {
    at += rng.int(30, 86400 / 4);
    const user = onlySender ?? rng.pick(thread.users);
    const share = rng.chance(0.12);
    const body = share ? shareBody(rng.pick(media), i) : { type: 'text' as const, text: rng.pick(MESSAGES), ref: null };
    addMessage(world, thread, { user, ts: at, ...body }, `${rng.digits(19)}`);
  }
  const messages = thread.messages.map((id) => world.messages.get(id)!);
  fitBefore(
    messages,
    (m) => m.ts,
    (m, ts) => {
      m.ts = ts;
    },
    thread.createdAt,
    world.epoch,
  );
  const last = messages[messages.length - 1];
  if (last && last.user !== FIXED.demo) thread.state.get(FIXED.demo)!.unread = rng.chance(0.4);
}

/**
 * A shared post: mostly the app's media share, but every third one pasted as a share link, in the
 * two forms the app copies (`/share/<code>` and `/s/<code>?igsh=`), so a client finds share links
 * to decode in its inbox. Decided by position, so the random sequence is unchanged.
 */
function shareBody(ref: string, i: number): { type: MessageType; text: string; ref: string | null } {
  if (i % 3 !== 2) return { type: 'media_share', text: '', ref };
  return { type: 'link', text: i % 2 ? urls.share('media', ref) : urls.shareLegacy('media', ref, `sandbox${i}`), ref: null };
}

export function addMessage(
  world: World,
  thread: ThreadRec,
  init: { user: string; ts: number; type: MessageType; text: string; ref: string | null; video?: boolean },
  id?: string,
): MessageRec {
  const message: MessageRec = {
    id: id ?? nextId(world),
    thread: thread.id,
    user: init.user,
    ts: init.ts,
    seq: ++world.counters.message,
    type: init.type,
    text: init.text,
    ref: init.ref,
    video: init.video ?? false,
    reactions: new Map(),
    likes: new Set(),
    seenBy: new Set([init.user]),
  };
  world.messages.set(message.id, message);
  thread.messages.push(message.id);
  return message;
}

/** Ids for objects created at run time: a counter, so they never collide with generated ones. */
export function nextId(world: World, prefix = ''): string {
  world.counters.id += 1n;
  return `${prefix}${world.counters.id}`;
}
