// One session, one call at a time: the upstream client is not safe for concurrent use, so calls
// for the same session queue behind each other while different sessions run concurrently. The
// common case, no call in flight for the session, runs at once without chaining promises.
type Thunk = () => void;

export class Lanes {
  /** A key is busy while present; its queue is allocated only when a second task arrives. */
  private readonly queues = new Map<string, Thunk[] | null>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    if (!this.queues.has(key)) {
      this.queues.set(key, null);
      return this.start(key, task);
    }
    return new Promise<T>((resolve, reject) => {
      let queue = this.queues.get(key);
      if (!queue) this.queues.set(key, (queue = []));
      queue.push(() => void this.start(key, task).then(resolve, reject));
    });
  }

  get busy(): number {
    return this.queues.size;
  }

  /** Runs the task; when it settles, hands the lane to the next task or frees it. */
  private start<T>(key: string, task: () => Promise<T>): Promise<T> {
    let running: Promise<T>;
    try {
      running = task();
    } catch (error) {
      running = Promise.reject(error);
    }
    const release = () => {
      const next = this.queues.get(key)?.shift();
      if (next) next();
      else this.queues.delete(key);
    };
    running.then(release, release);
    return running;
  }
}
