// What a console action changed beyond session records (a pool, a new job), told to the open live
// streams (./events.ts). Its own module so the actions (./jobs.ts) and the stream need not import
// each other. One per app: the console module's start makes it (./parts.ts).
export type Topic = 'sessions' | 'jobs';

export class ConsoleChanges {
  /** The open streams' listeners. */
  private readonly listeners = new Set<(topic: Topic) => void>();

  changed(topic: Topic): void {
    for (const push of this.listeners) push(topic);
  }

  /** Registers an open stream's listener; answers the function that removes it. */
  listen(listener: (topic: Topic) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}
