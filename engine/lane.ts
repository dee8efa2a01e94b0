// One session, one call at a time: the upstream client is not safe for concurrent use, so calls
// for the same session queue behind each other while different sessions run concurrently.
export class Lanes {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous.then(task, task);
    const tail = next.catch(() => undefined);
    this.tails.set(key, tail);
    // Drop the entry once the lane is idle so the map holds only busy sessions.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  get busy(): number {
    return this.tails.size;
  }
}
