// The WorkQueue on BullMQ 6, for several instances sharing Redis or PostgreSQL: every instance is
// a worker. One BullMQ queue per work kind (its concurrency is the kind's), the item id as the
// BullMQ job id (a second add while one is waiting, delayed or active is a no-op), attempts with
// our backoff steps as a custom strategy, "later without an attempt" as moveToDelayed plus
// DelayedError (repeating work reschedules itself that way). A killed instance's active jobs stall and
// BullMQ hands them to another worker. No queue or lock of our own.
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import type { AddOptions, DefineOptions, Logger, WorkHandler, WorkItem, WorkQueue } from '../../engine/types.js';
import { isStoreDown, outageReporter } from '../store/bounded.js';
import { settledWithin, stepOf } from './toolkit/index.js';

export interface BullOptions {
  /** ioredis connection options or a redis:// URL; or a PostgreSQL connection string with `backend`. */
  readonly connection: unknown;
  /** BullMQ's PostgreSQL backend factory, when the queue lives in PostgreSQL. */
  readonly backend?: unknown;
  readonly engine: string;
  readonly log: Logger;
  /** A job whose worker died is handed to another after about this long (BullMQ's lock and stalled check). */
  readonly lockMs?: number;
}

interface Data<T = unknown> {
  readonly data: T;
  readonly backoffMs: readonly number[];
}

const PREFIX = 'socialgate';
/** An item whose handler met the store away runs again this soon (without spending an attempt). */
const STORE_RETRY_MS = 1000;

export class BullWorkQueue implements WorkQueue {
  readonly engine: string;
  private readonly queues = new Map<string, Queue>();
  private readonly workers: Worker[] = [];
  /** Workers pausing after an error, and the length of their last rest (see rest()). */
  private readonly resting = new Set<Worker>();
  private readonly rests = new Map<Worker, number>();
  private readonly kinds = new Map<string, { handler: WorkHandler<unknown>; options: DefineOptions }>();
  private readonly abort = new AbortController();
  private started = false;
  /** Connection errors of every queue and worker: one line each, rate-limited. */
  private readonly report: (error: unknown) => void;

  constructor(private readonly options: BullOptions) {
    this.engine = options.engine;
    this.report = outageReporter(options.log, options.engine);
  }

  define<T>(kind: string, handler: WorkHandler<T>, options: DefineOptions = {}): void {
    if (this.started) throw new Error(`work kind "${kind}" defined after the queue started`);
    if (this.kinds.has(kind)) throw new Error(`work kind "${kind}" defined twice`);
    this.kinds.set(kind, { handler: handler as WorkHandler<unknown>, options });
  }

  async add<T>(kind: string, id: string, data: T, options: AddOptions = {}): Promise<void> {
    const payload: Data<T> = { data, backoffMs: options.backoffMs ?? [1000] };
    await this.queue(kind).add(kind, payload, {
      jobId: jobIdOf(id),
      delay: options.delayMs,
      attempts: Math.max(1, options.attempts ?? 1),
      backoff: { type: 'steps' },
      removeOnComplete: true,
      removeOnFail: true,
    });
  }

  async remove(kind: string, id: string): Promise<void> {
    await this.queue(kind)
      .remove(jobIdOf(id))
      .catch(() => undefined); // an active job is locked: it finishes its run
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    for (const [kind, { handler, options }] of this.kinds) {
      const worker = new Worker(
        queueName(kind),
        (job, token) => this.run(job, token, handler),
        {
          ...this.connectionOptions(),
          concurrency: Math.max(1, options.concurrency ?? 1),
          lockDuration: this.options.lockMs ?? 30_000,
          stalledInterval: this.options.lockMs ?? 30_000,
          maxStalledCount: 3,
          settings: {
            backoffStrategy: (attemptsMade: number, _type?: string, _err?: Error, job?: { data: unknown }) =>
              stepOf((job?.data as Data | undefined)?.backoffMs ?? [1000], attemptsMade),
          },
        } as never,
        this.options.backend as never,
      );
      worker.on('failed', (job, error) => {
        if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) void this.failed(kind, job, error, options);
      });
      worker.on('error', (error) => {
        this.report(error);
        this.rest(worker);
      });
      this.workers.push(worker);
    }
    // Each kind's queue made now (PostgreSQL: its tables migrated), so a request's first add of a kind does not pay for it.
    await Promise.all([...this.kinds.keys()].map((kind) => this.queue(kind).waitUntilReady()));
  }

  /**
   * BullMQ fetches again at once after an error it does not know as a lost connection, and its
   * PostgreSQL backend's errors while the server shuts down or restarts ("terminating connection",
   * "the database system is shutting down") are not among those: the fetch loop then spins in
   * promises and starves the event loop, requests included. A worker that reports an error pauses
   * (jobs it runs go on) and resumes after a rest that doubles, up to 5 s, while errors go on.
   */
  private rest(worker: Worker): void {
    if (this.resting.has(worker) || this.abort.signal.aborted) return;
    const ms = Math.min(5000, (this.rests.get(worker) ?? 125) * 2);
    this.resting.add(worker);
    this.rests.set(worker, ms);
    void worker.pause(true); // sets `paused` at once: the loop stops before its next fetch
    const timer = setTimeout(() => {
      this.resting.delete(worker);
      if (this.abort.signal.aborted) return;
      void worker.resume();
      // a quiet spell after the resume starts the next outage's rests short again
      const calm = setTimeout(() => !this.resting.has(worker) && this.rests.delete(worker), 10_000);
      calm.unref();
    }, ms);
    timer.unref();
  }

  /**
   * Stops the workers (their handlers see the abort), then the queues. A connection that is still
   * finding its way back after a store outage can keep BullMQ's close waiting for good, so each step
   * has CLOSE_MS and then its connections are dropped: a shutdown never hangs.
   */
  async close(): Promise<void> {
    this.abort.abort(new Error('work queue closing'));
    // A worker resting after an error is paused, and BullMQ's close waits for a paused loop that
    // nothing would resume any more (the rest's timer sees the abort): resumed first, it can end.
    for (const worker of this.resting) worker.resume();
    const queues = [...this.queues.values()];
    await closeWithin(this.workers.map((w) => () => w.close(true)));
    await closeWithin(queues.map((q) => () => q.close()));
    await severAll([...this.workers, ...queues]);
  }

  private async run(job: Job, token: string | undefined, handler: WorkHandler<unknown>): Promise<void> {
    const payload = job.data as Data;
    const item: WorkItem = { kind: job.name, id: idOf(job.id!), data: payload.data, attempt: job.attemptsMade + 1, signal: this.abort.signal };
    let outcome: Awaited<ReturnType<WorkHandler>>;
    try {
      outcome = await handler(item);
    } catch (error) {
      if (!isStoreDown(error)) throw error;
      outcome = { delayMs: STORE_RETRY_MS }; // the store was away: no fault of the item's, no attempt spent
    }
    if (!outcome) return;
    const at = 'retryAt' in outcome ? outcome.retryAt : Date.now() + Math.max(0, outcome.delayMs);
    // Later, not a failure: the job goes back to delayed without spending an attempt.
    await this.later(job, at, token);
    throw new DelayedError();
  }

  /**
   * Moves the job back to delayed, trying again while the store is away (up to half the lock time):
   * a job left active would wait for the stalled check, a lock time or more after the store's return.
   */
  private async later(job: Job, at: number, token: string | undefined): Promise<void> {
    const until = Date.now() + (this.options.lockMs ?? 30_000) / 2;
    for (;;) {
      try {
        return await job.moveToDelayed(Math.max(at, Date.now() + 1), token);
      } catch (error) {
        if (Date.now() > until || this.abort.signal.aborted) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  private async failed(kind: string, job: Job, error: Error, options: DefineOptions): Promise<void> {
    const item: WorkItem = { kind, id: idOf(job.id!), data: (job.data as Data).data, attempt: job.attemptsMade, signal: this.abort.signal };
    try {
      await options.onFailed?.(item, error);
    } catch (hookError) {
      this.options.log.warn('work failure hook threw', { kind, error: String(hookError) });
    }
  }

  private queue(kind: string): Queue {
    let queue = this.queues.get(kind);
    if (!queue) {
      queue = new Queue(queueName(kind), this.connectionOptions(true) as never, this.options.backend as never);
      queue.on('error', this.report); // without a listener BullMQ prints each error's stack to the console
      this.queues.set(kind, queue);
    }
    return queue;
  }

  /**
   * Workers block on Redis and retry without limit; a producer (adds from requests) fails at once
   * while the connection is down instead of queueing the command until the server returns.
   */
  private connectionOptions(producer = false): Record<string, unknown> {
    if (this.options.backend) return { connection: this.options.connection };
    const connection =
      producer && typeof this.options.connection === 'object' ? { ...this.options.connection, enableOfflineQueue: false } : this.options.connection;
    return { connection, prefix: PREFIX };
  }
}

const queueName = (kind: string) => `${PREFIX}-${kind}`;
// BullMQ refuses ':' in custom ids (it separates key parts): ids are escaped one way, both ways.
const jobIdOf = (id: string) => 'w' + encodeURIComponent(id);
const idOf = (jobId: string) => decodeURIComponent(jobId.slice(1));

const CLOSE_MS = 5000;
const SEVER_MS = 500;

/** Runs the closes, giving up on those not done within CLOSE_MS (severAll then cuts them off). */
async function closeWithin(closes: readonly (() => Promise<unknown>)[]): Promise<void> {
  return settledWithin(
    closes.map((close) => close()),
    CLOSE_MS,
  );
}

/**
 * Disconnects every connection, closed or not. A close can return with its connection still
 * reconnecting (BullMQ's quit fails on a connection that is down and the reconnection goes on, which
 * holds the process open for good); a disconnect stops it. It waits for an end event that a
 * connection already down never sends: the wait is bounded, the reconnection is stopped at once.
 */
async function severAll(holders: readonly { disconnect(): Promise<void> }[]): Promise<void> {
  return settledWithin(
    holders.map((holder) => holder.disconnect()),
    SEVER_MS,
  );
}

let guardedListen = false;

/**
 * BullMQ 6.7's PostgreSQL connection: a worker's wait can ask for the LISTEN client after the
 * connection's close began, and the client it then opens is never closed (two apps closed left ten
 * such connections on the server; stopping the server under them then threw an error nobody heard,
 * failing a test process). Once the close began, the ask fails instead; the worker is stopping and
 * does not wait again. Idempotent; the class is BullMQ's public export.
 */
export function noListenAfterClose(Connection: { prototype: object }): void {
  if (guardedListen) return;
  guardedListen = true;
  const proto = Connection.prototype as { getListenClient(): Promise<unknown>; readonly isClosing: unknown };
  const getListenClient = proto.getListenClient;
  proto.getListenClient = function (this: typeof proto) {
    if (this.isClosing) return Promise.reject(new Error('the PostgreSQL connection is closing'));
    return getListenClient.call(this);
  };
}
