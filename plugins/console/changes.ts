// What a console action changed beyond session records (a pool, a new job), told to the open live
// streams (./events.ts). Its own module so the actions (./jobs.ts) and the stream need not import
// each other.
import type { Services } from '../../engine/types.js';

export type Topic = 'sessions' | 'jobs';

/** Open streams per app. */
const streams = new WeakMap<Services, Set<(topic: Topic) => void>>();

export function consoleChanged(services: Services, topic: Topic): void {
  for (const push of streams.get(services) ?? []) push(topic);
}

/** Registers an open stream's listener; answers the function that removes it. */
export function onConsoleChange(services: Services, listener: (topic: Topic) => void): () => void {
  (streams.get(services) ?? streams.set(services, new Set()).get(services)!).add(listener);
  return () => void streams.get(services)?.delete(listener);
}
