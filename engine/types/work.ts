// The background layer's ports: a queue of idempotent work items (jobs, watchers, webhook
// deliveries), a small durable store for what the work keeps, and the events outbox. Shared by
// the jobs and events issues; adapters/work implements them (SQLite in process by default, BullMQ
// on Redis or PostgreSQL).

// -- Work queue ------------------------------------------------------------------------------

/** One delivery of a work item to its handler. Delivery is at least once: handlers are idempotent. */
export interface WorkItem<T = unknown> {
  readonly kind: string;
  readonly id: string;
  readonly data: T;
  /** 1 on the first run; counts runs that threw (a `retryAt`/`delayMs` outcome does not count). */
  readonly attempt: number;
  /** Aborted when the queue closes: a long handler should stop at its next safe point. */
  readonly signal: AbortSignal;
}

/**
 * What a handler's return means: nothing → done; `{ retryAt }` or `{ delayMs }` → run again then,
 * without counting an attempt (a job waiting for the governor, a webhook answering 429). Throwing
 * counts an attempt: retried after the next backoff step, failed once attempts are spent.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler with nothing to say returns Promise<void>
export type WorkOutcome = void | undefined | { readonly retryAt: number } | { readonly delayMs: number };

export type WorkHandler<T = unknown> = (item: WorkItem<T>) => Promise<WorkOutcome>;

export interface DefineOptions {
  /** Items of this kind run at once in this instance (default 1). */
  readonly concurrency?: number;
  /** Called once an item has spent its attempts (after its last throw). */
  readonly onFailed?: (item: WorkItem, error: unknown) => Promise<void> | void;
}

export interface AddOptions {
  /** Not before this many milliseconds from now. */
  readonly delayMs?: number;
  /** Runs that may throw before the item fails (default 1). */
  readonly attempts?: number;
  /** Milliseconds to wait after the 1st, 2nd... throw; the last step repeats. Default [1000]. */
  readonly backoffMs?: readonly number[];
}

export interface WorkQueue {
  /** Which engine runs the work ("sqlite", "bullmq-redis", "bullmq-postgres"), for /ready and logs. */
  readonly engine: string;
  /** Before start(): the handler for a kind. A kind added but never defined waits. */
  define<T>(kind: string, handler: WorkHandler<T>, options?: DefineOptions): void;
  /** Idempotent by (kind, id): a second add while the first is pending or running is a no-op. */
  add<T>(kind: string, id: string, data: T, options?: AddOptions): Promise<void>;
  /** Removes a pending item (a running one finishes its current run and is not run again). */
  remove(kind: string, id: string): Promise<void>;
  start(): Promise<void>;
  /** Stops taking work, aborts handlers' signals and waits for running handlers to return. */
  close(): Promise<void>;
}

// -- Work store ------------------------------------------------------------------------------

/** One entry of a list: its position (1, 2, ... in order of first append) and its value. */
export interface ListEntry<T = unknown> {
  readonly seq: number;
  readonly value: T;
}

/** A document to write in the same transaction as an append (a job's cursor with its page of items). */
export interface DocWrite {
  readonly bucket: string;
  readonly key: string;
  readonly value: unknown;
}

/**
 * What background work keeps, shared by every instance that shares the session store. Two
 * structures: documents (JSON by bucket and key: job records, webhook endpoints, watermarks) and
 * append-only lists deduplicated by a key per entry (collected items, the event log).
 */
export interface WorkStore {
  readonly engine: string;
  get<T>(bucket: string, key: string): Promise<T | undefined>;
  put(bucket: string, key: string, value: unknown): Promise<void>;
  /** Reads, changes and writes one document atomically; `change` answering undefined leaves it as it was. Answers what is stored after. */
  update<T>(bucket: string, key: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined>;
  delete(bucket: string, key: string): Promise<boolean>;
  /** Documents of a bucket in key order. */
  list<T>(bucket: string, options?: { readonly after?: string; readonly limit?: number }): Promise<{ key: string; value: T }[]>;
  /**
   * Appends the entries whose key the list has not seen (in order), and writes `withDoc` (given
   * the number of new entries) in the same transaction, so a crash leaves both or neither.
   * Answers how many entries were new.
   */
  append(list: string, entries: readonly { readonly key: string; readonly value: unknown }[], withDoc?: (added: number) => DocWrite): Promise<number>;
  /** Entries with seq > after, oldest first. */
  read<T>(list: string, options?: { readonly after?: number; readonly limit?: number }): Promise<ListEntry<T>[]>;
  count(list: string): Promise<number>;
  /** The highest seq the list has given (0 for none): where a reader that wants only what comes next starts. */
  last(list: string): Promise<number>;
  /**
   * Drops all but the newest `keep` entries (at least one stays, so seq keeps counting up). Their
   * keys may be kept for deduplication (Redis keeps them), so `count` can stay above what `read` finds.
   */
  trim(list: string, keep: number): Promise<void>;
  dropList(list: string): Promise<void>;
  /** Encrypts a secret (a webhook secret) with the session store's key; `open` reverses it. */
  seal(text: string, context: string): string;
  open(sealed: string, context: string): string;
  ready(): Promise<{ readonly ok: boolean; readonly detail?: string }>;
  close(): Promise<void>;
}

// -- Events outbox ---------------------------------------------------------------------------

export interface WorkEvent {
  /** Stable, derived from the platform's own ids (or the job id): emitting it twice is a no-op. */
  readonly id: string;
  readonly type: string;
  readonly session?: string;
  /** Epoch ms. */
  readonly timestamp: number;
  readonly data: Readonly<Record<string, unknown>>;
}

export interface Events {
  emit(event: WorkEvent): Promise<void>;
  /**
   * Tells this instance's live views (the console's stream) of a change that is no event: a job's
   * page, a webhook delivery. Neither logged nor delivered; absent on the default events.
   */
  notice?(type: string, data?: Readonly<Record<string, unknown>>): void;
}

/** What the outbox's listeners hear: each event this instance logs first, and each notice. */
export interface EventNotice {
  readonly type: string;
  readonly session?: string;
  readonly data?: Readonly<Record<string, unknown>>;
}

/** The outbox's reading side, for consumers the engine knows only by this port (MCP resources and subscriptions). */
export interface EventLog extends Events {
  /** A session's events (by ref) after a log position, within retention, oldest first. */
  read(ref: string | undefined, after: number, limit?: number): Promise<readonly ListEntry<WorkEvent>[]>;
  /** The newest position of a session's log (0 for none). */
  last(ref: string | undefined): Promise<number>;
  /** Resolves on the next new event this instance keeps, or after `ms`, or when `signal` aborts. */
  next(ms: number, signal: AbortSignal): Promise<void>;
}

/** The events of a layer as a log, when its events module keeps one (the outbox); the default emitter keeps none. */
export const eventLogOf = (work: WorkLayer | undefined): EventLog | undefined => {
  const events = work?.events as Partial<EventLog> | undefined;
  return events && typeof events.read === 'function' && typeof events.last === 'function' && typeof events.next === 'function'
    ? (events as EventLog)
    : undefined;
};

/** The background layer handed to plugins and background modules through Services. */
export interface WorkLayer {
  readonly queue: WorkQueue;
  readonly store: WorkStore;
  /** Replaceable after boot by the events module (the outbox); the default keeps a deduplicated log. */
  events: Events;
}
