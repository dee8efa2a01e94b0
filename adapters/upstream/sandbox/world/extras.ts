// What the world holds beside the generated graph and media, derived from it without drawing a
// random number (so every seed's world stays as it was): the platform's AI chat characters,
// broadcast channels, standalone fundraisers, a few notes friends left on demo's reels, and demo's own
// inbox note and scheduled live broadcast (so the documented examples that read or end them find them).
import { PHRASES } from './words.js';
import type { World } from './types.js';
import { addUser, blankUser, FIXED } from './users.js';

const BOTS: readonly [string, string, string][] = [
  ['sandbox.ai.chef', 'Chef Remy (AI)', 'Recipes from whatever is in your fridge.'],
  ['sandbox.ai.coach', 'Coach Mika (AI)', 'Short workouts and a push when you need one.'],
  ['sandbox.ai.travel', 'Wanderbot (AI)', 'Itineraries for a weekend or a year.'],
  ['sandbox.ai.poet', 'Verse (AI)', 'A poem about anything, in any mood.'],
  ['sandbox.ai.tutor', 'Tutor Ada (AI)', 'Maths and science, one question at a time.'],
  ['sandbox.ai.stylist', 'Stylo (AI)', 'Outfit ideas from your wardrobe.'],
  ['sandbox.ai.plants', 'Fern (AI)', 'Keeps your houseplants alive.'],
  ['sandbox.ai.music', 'Riff (AI)', 'Finds the song stuck in your head.'],
];

const CAUSES = ['clean water', 'the local animal shelter', 'school libraries', 'ocean clean-up', 'the food bank', 'mental health support'];
const CHARITIES = ['Sandbox Water Trust', 'Paws & Co Shelter', 'Open Books Foundation', 'Blue Tide Collective', 'City Food Bank', 'Mind Matters'];
const DAY = 86400;

/** A free pk at or after `from` (generated pks are 8 to 11 random digits, so a clash is rare but possible). */
function freePk(world: World, from: number): string {
  let pk = from;
  while (world.users.has(String(pk))) pk++;
  return String(pk);
}

function generateBots(world: World): void {
  let next = 7_000_000_001;
  for (const [username, fullName, bio] of BOTS) {
    const pk = freePk(world, next);
    next = Number(pk) + 1;
    const bot = blankUser(pk, username, fullName);
    Object.assign(bot, { biography: bio, isVerified: true, category: 'AI character', joined: world.epoch - 200 * DAY, email: '' });
    addUser(world, bot);
    world.aiBots.push(pk);
  }
}

/** demo and every verified account run a channel; its first followers are members. */
function generateChannels(world: World): void {
  const owners = [...world.users.values()].filter((u) => (u.pk === FIXED.demo || u.isVerified) && !world.aiBots.includes(u.pk));
  for (const owner of owners) {
    const id = `17${owner.pk.padStart(16, '0')}`;
    const title = owner.pk === FIXED.demo ? 'Sandbox updates' : `${owner.fullName}'s channel`;
    world.channels.set(id, {
      id,
      owner: owner.pk,
      title,
      subtitle: `Updates from ${owner.username}`,
      members: new Set([owner.pk, ...[...owner.followers].slice(0, 20)]),
      createdAt: Math.min(world.epoch - DAY, owner.joined + 30 * DAY),
    });
  }
}

/** demo and every fifth business account raise money for a cause. */
function generateFundraisers(world: World): void {
  const owners = [...world.users.values()].filter((u) => u.pk === FIXED.demo || (u.isBusiness && Number(u.pk) % 5 === 0));
  for (const owner of owners) {
    const n = Number(owner.pk);
    const goalCents = (5 + (n % 20)) * 100_000;
    const startAt = world.epoch - ((n % 20) + 5) * DAY;
    world.fundraisers.set(owner.pk, {
      id: `18${owner.pk.padStart(15, '0')}`,
      owner: owner.pk,
      title: `${owner.fullName} for ${CAUSES[n % CAUSES.length]}`,
      description: `Help ${owner.username} raise money for ${CAUSES[n % CAUSES.length]}.`,
      beneficiary: CHARITIES[n % CHARITIES.length],
      goalCents,
      raisedCents: Math.floor((goalCents * ((n % 90) + 5)) / 100),
      supporters: [...owner.followers].slice(0, 3 + (n % 25)),
      startAt,
      endAt: startAt + 30 * DAY,
    });
  }
}

/** Mutual friends left notes on demo's three latest reels. */
function generateMediaNotes(world: World): void {
  const demo = world.users.get(FIXED.demo)!;
  const friends = [...demo.followers].filter((pk) => demo.following.has(pk));
  const reels = demo.media.filter((pk) => world.media.get(pk)!.kind === 'clip' && !world.media.get(pk)!.archived).slice(0, 3);
  reels.forEach((pk, i) => {
    const author = friends[i];
    if (!author) return;
    const id = `1${pk.slice(1)}`;
    world.mediaNotes.set(id, { id, media: pk, user: author, text: PHRASES[i], audience: 7, style: 13, createdAt: world.media.get(pk)!.takenAt + 1800 });
  });
}

/** Ids of demo's own note and scheduled broadcast: fixed, so the manifest's examples can name them. */
export const DEMO_NOTE_ID = '17900000000000001';
export const DEMO_LIVE_ID = '17900000000000002';

/** demo's note in the inbox tray and a live broadcast created but not started yet. */
function generateDemoNoteAndLive(world: World): void {
  world.notes.set(DEMO_NOTE_ID, {
    id: DEMO_NOTE_ID,
    user: FIXED.demo,
    text: 'Trying the sandbox',
    audience: 0,
    createdAt: world.epoch - 3600,
    style: 0,
    track: null,
    seenBy: new Set(),
  });
  world.lives.set(DEMO_LIVE_ID, {
    id: DEMO_LIVE_ID,
    owner: FIXED.demo,
    title: 'Sandbox live',
    state: 'created',
    createdAt: world.epoch - 600,
    startedAt: null,
    endedAt: null,
    comments: [],
    viewers: [],
  });
}

export function generateExtras(world: World): void {
  generateBots(world);
  generateChannels(world);
  generateFundraisers(world);
  generateMediaNotes(world);
  generateDemoNoteAndLive(world);
}
