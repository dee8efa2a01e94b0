// Resource updates for subscribers on both protocol generations: a 2026-07-28 listen stream (the
// SDK's notifier) and a 2025 session's resources/subscribe (its own server sends the update). The
// events of a session are heard from the events outbox by ONE loop per instance, woken by each new
// event this instance keeps and looking at the log of every session someone subscribed to (events
// kept by another instance are found within EVENTS_LOOK_MS), never one poll per subscriber.
import type { EventLog } from '../types.js';

/** How often the loop looks at the subscribed sessions' logs when nothing woke it (events of other instances). */
export const EVENTS_LOOK_MS = 2000;

export type Publish = (uri: string) => void;

export class ResourceUpdates {
  private readonly publishers = new Set<Publish>();
  /** Session refs whose events someone listens to, with how many hold each. */
  private readonly held = new Map<string, number>();
  private readonly seen = new Map<string, number>();
  private looping?: AbortController;

  constructor(
    private readonly logOf: () => EventLog | undefined,
    private readonly eventsUri: (ref: string) => string,
    private readonly lookMs = EVENTS_LOOK_MS,
  ) {}

  /** Adds a way to reach subscribers; answers its removal. */
  reach(publish: Publish): () => void {
    this.publishers.add(publish);
    return () => this.publishers.delete(publish);
  }

  publish(uri: string): void {
    for (const publish of this.publishers) publish(uri);
  }

  /** Whether events can be heard here (an app with the events outbox). */
  get hearsEvents(): boolean {
    return this.logOf() !== undefined;
  }

  /** Listens to a session's events until the answer is called. */
  hold(ref: string): () => void {
    const log = this.logOf();
    if (!log) return () => undefined;
    const first = !this.held.has(ref);
    this.held.set(ref, (this.held.get(ref) ?? 0) + 1);
    if (first)
      void log.last(ref).then(
        (at) => this.seen.set(ref, at),
        () => undefined,
      );
    this.loop(log);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.held.get(ref) ?? 1) - 1;
      if (left > 0) return void this.held.set(ref, left);
      this.held.delete(ref);
      this.seen.delete(ref);
      if (!this.held.size) this.stop();
    };
  }

  stop(): void {
    this.looping?.abort();
    this.looping = undefined;
  }

  private loop(log: EventLog): void {
    if (this.looping) return;
    const controller = (this.looping = new AbortController());
    void this.run(log, controller.signal)
      .catch(() => undefined)
      .finally(() => {
        if (this.looping === controller) this.looping = undefined;
      });
  }

  private async run(log: EventLog, signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      await log.next(this.lookMs, signal);
      if (signal.aborted) return;
      await this.look(log);
    }
  }

  /** Publishes the events resource of each held session whose log grew since the last look. */
  private async look(log: EventLog): Promise<void> {
    for (const ref of [...this.held.keys()]) {
      const at = await log.last(ref).catch(() => undefined);
      if (at === undefined) continue;
      const before = this.seen.get(ref);
      this.seen.set(ref, at);
      if (before !== undefined && at > before) this.publish(this.eventsUri(ref));
    }
  }
}
