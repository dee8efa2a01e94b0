// One world from one seed: the same seed always yields the same users, media, threads and ids.
import { createRng } from '../prng.js';
import { generateMedia, generatePlaces } from './media.js';
import { generateExtras } from './extras.js';
import { generateCollections, generateNotes, generateStories, generateThreads } from './social.js';
import type { World } from './types.js';
import { FIXED, generateGraph, generateUsers } from './users.js';
import { generateBig, UserMap } from './big.js';

export function generateWorld(seed: number, nowMs: number): World {
  const world: World = {
    seed,
    // Whole hours, so a restart within the hour gives identical timestamps.
    epoch: Math.floor(nowMs / 3_600_000) * 3600,
    users: new UserMap(),
    byUsername: new Map(),
    media: new Map(),
    comments: new Map(),
    stories: new Map(),
    highlights: new Map(),
    hashtags: new Map(),
    locations: new Map(),
    collections: new Map(),
    threads: new Map(),
    messages: new Map(),
    notes: new Map(),
    mediaNotes: new Map(),
    channels: new Map(),
    fundraisers: new Map(),
    aiBots: [],
    tracks: new Map(),
    lives: new Map(),
    challenged: new Set([FIXED.demo_challenge]),
    since: new Map(),
    activity: new Map(),
    counters: { id: 4_000_000_000_000_000_000n, message: 0, edge: 0 },
  };
  const rng = createRng(seed);
  generateUsers(world, rng);
  generateGraph(world, rng);
  generatePlaces(world, rng);
  generateMedia(world, rng);
  generateStories(world, rng);
  generateCollections(world, rng);
  generateNotes(world, rng);
  generateThreads(world, rng);
  // Drawn from no random numbers, so adding them leaves the rest of every seed's world as it was.
  generateExtras(world);
  generateBig(world);
  return world;
}
