// Jobs: a paged route collected whole in the background. One work item per job; each run fetches
// one page through the session's lane and governor (or a healthy pool member's), appends its new
// items (deduplicated by primary key) and saves the cursor in one transaction, then asks to run
// again after the pacing interval. So a restart, kill -9 included, resumes from the last saved
// page: the page in flight is fetched again and its items are already there or not at all.
import { randomBytes } from 'node:crypto';
import { HttpError } from '../../engine/http-error.js';
import { invalidParams } from '../../engine/service-errors.js';
import { serviceError } from './errors.js';
import { owns } from '../../engine/owner.js';
import type {
  BackgroundRoutes,
  Caller,
  Events,
  InputBag,
  Logger,
  Owner,
  SessionRecord,
  SessionService,
  UpstreamAdapter,
  WorkItem,
  WorkLayer,
  WorkOutcome,
  WorkStore,
} from '../../engine/types.js';
import { itemKey, jobKinds, type JobKind } from './kinds.js';
import { sessionRef } from '../../adapters/events/ids.js';
import type { Pools } from '../pools/pools.js';
import { jittered, PacedWork, type Pause } from '../../adapters/work/toolkit/index.js';
import { IteratorPaging, type IteratorRun } from './iterate.js';
import { type JobEventType, jobOwner, type JobRecord, listOf, pagingOf, TERMINAL } from './record.js';

export { JOB_EVENT_TYPES, jobView, listOf, type JobRecord, type JobState } from './record.js';

export const JOB_WORK = 'job';
const BUCKET = 'jobs';
const CANCELLED = 'jobs-cancelled';
/** A page run that throws (not a throttle, challenge or dead session) is tried this many times. */
const ATTEMPTS = 4;
const BACKOFF_MS = [2000, 10_000, 60_000];
/** Pages in a row that bring nothing new before a job ends: a cursor that loops or comes back empty. */
const STALE_PAGES = 3;
/** Pages of one session are spaced by the interval ±25 %. */
const JITTER = 0.25;

export interface JobSettings {
  /** Milliseconds between two pages of one session; jittered by ±25 %. */
  readonly intervalMs: number;
  /** How often a job paused by a challenge or a dead session looks again. */
  readonly recheckMs: number;
}

export interface JobsDeps {
  readonly work: WorkLayer;
  readonly sessions: SessionService;
  readonly routes: BackgroundRoutes;
  readonly pools: Pools;
  /** The upstream, for its capabilities (the async iterators it has). */
  readonly upstream?: Pick<UpstreamAdapter, 'library'>;
  readonly log: Logger;
  readonly settings: JobSettings;
  readonly now?: () => number;
}

export class Jobs {
  readonly kinds: ReadonlyMap<string, JobKind>;
  private readonly store: WorkStore;
  private readonly now: () => number;
  /** Health, refusals and the spacing between pages of one session (or pool member). */
  private readonly paced: PacedWork;
  private readonly iterators: IteratorPaging;

  constructor(private readonly deps: JobsDeps) {
    this.kinds = jobKinds(deps.routes.routes, deps.routes.schemas);
    this.store = deps.work.store;
    this.now = deps.now ?? Date.now;
    this.paced = new PacedWork({ sessions: deps.sessions, routes: deps.routes, now: this.now });
    this.iterators = new IteratorPaging(() => deps.upstream?.library.capabilities?.iterators ?? []);
  }

  private get events(): Events {
    return this.deps.work.events; // read each time: the events module may install its outbox after boot
  }

  install(): void {
    this.deps.work.queue.define<{ job: string }>(JOB_WORK, (item) => this.step(item), {
      concurrency: 8,
      onFailed: (item, error) => this.fail((item.data as { job: string }).job, error),
    });
  }

  // -- Requests ------------------------------------------------------------------------------

  async create(request: {
    route: string;
    params: Readonly<Record<string, unknown>>;
    limit: number;
    session?: SessionRecord;
    pool?: string;
    owner?: Owner;
  }): Promise<JobRecord> {
    const kind = this.kindFor(request.route);
    this.deps.routes.input(kind.route, { ...request.params, [kind.cursorParam]: '' }); // a bad parameter is a 422 now, not a failed job later
    if (request.pool) await this.deps.pools.view(request.pool); // 404 for an unknown pool
    const id = randomBytes(12).toString('base64url');
    const now = this.now();
    const job: JobRecord = {
      id,
      route: kind.route.key,
      params: request.params,
      limit: request.limit,
      session: request.pool ? undefined : request.session && this.store.seal(request.session.id, id),
      account: request.pool ? undefined : request.session?.account,
      session_ref: request.pool || !request.session ? undefined : sessionRef(request.session.id),
      pool: request.pool,
      owner: request.owner ?? (request.session ? { account: request.session.account.pk } : {}),
      state: 'queued',
      items: 0,
      pages: 0,
      cursor: '',
      stale: 0,
      created_at: now,
      updated_at: now,
    };
    await this.store.put(BUCKET, id, job);
    await this.deps.work.queue.add(JOB_WORK, id, { job: id }, { attempts: ATTEMPTS, backoffMs: BACKOFF_MS });
    return job;
  }

  /** The job; with a caller, another owner's answers 404 as an unknown one. */
  async get(id: string, caller?: Caller): Promise<JobRecord> {
    const job = await this.store.get<JobRecord>(BUCKET, id);
    if (!job || (caller && !owns(caller, jobOwner(job)))) throw serviceError('JobNotFound', 'No job with that id');
    if (!TERMINAL.has(job.state) && (await this.store.get(CANCELLED, id))) return { ...job, state: 'cancelled' };
    return job;
  }

  /** The caller's jobs of one account (its session's) or of one pool, newest first. */
  async list(of: { pk?: string; pool?: string }, caller?: Caller): Promise<JobRecord[]> {
    const all = await this.store.list<JobRecord>(BUCKET);
    const mine = all
      .map((d) => d.value)
      .filter((job) => (of.pool ? job.pool === of.pool : job.account?.pk === of.pk && !job.pool) && (!caller || owns(caller, jobOwner(job))));
    return Promise.all(mine.sort((a, b) => b.created_at - a.created_at).map((job) => this.get(job.id)));
  }

  /** Every job of every owner, newest first, at most `limit` (the operator console's list). */
  async all(limit: number): Promise<JobRecord[]> {
    const all = (await this.store.list<JobRecord>(BUCKET))
      .map((d) => d.value)
      .sort((a, b) => b.created_at - a.created_at)
      .slice(0, limit);
    return Promise.all(all.map((job) => this.get(job.id)));
  }

  async cancel(id: string, caller?: Caller): Promise<JobRecord> {
    const job = await this.get(id, caller);
    if (TERMINAL.has(job.state)) return job;
    await this.store.put(CANCELLED, id, { at: this.now() });
    await this.deps.work.queue.remove(JOB_WORK, id);
    // a run already under way sees the mark when it settles; one not under way is settled here
    await this.finish(job, 'cancelled');
    return { ...job, state: 'cancelled' };
  }

  kindFor(route: string): JobKind {
    const kind = this.kinds.get(route.trim().replace(/\s+/, ' '));
    if (!kind) throw invalidParams([{ param: 'route', problem: `"${route}" is not a paged route; GET /jobs/kinds lists the routes a job can collect` }]);
    return kind;
  }

  // -- One page ------------------------------------------------------------------------------

  private async step(item: WorkItem<{ job: string }>): Promise<WorkOutcome> {
    const job = await this.store.get<JobRecord>(BUCKET, item.data.job);
    if (!job || TERMINAL.has(job.state)) return;
    if (await this.store.get(CANCELLED, job.id)) return void (await this.finish(job, 'cancelled'));
    const kind = this.kindFor(job.route);
    const chosen = await this.sessionFor(job);
    if ('pause' in chosen) return this.pause(job, chosen.pause);
    const wait = this.paced.waitFor(chosen.record.id, this.deps.settings.intervalMs * (1 - JITTER));
    if (wait > 0) return { delayMs: wait };
    this.paced.ran(chosen.record.id);
    const iterating = this.iterators.runFor(job, kind, kind.amount?.max ?? 50);
    const bag = this.bagFor(kind, job);
    const page = await this.paced.run(chosen.record, (record) =>
      this.deps.routes.run(kind.route, bag, record, item.signal, iterating && { via: iterating.via }),
    );
    if ('pause' in page) return this.pause(job, this.memberTrouble(job, page.pause));
    return this.savePage(kind, job, page.value as Record<string, unknown>, iterating);
  }

  /** A pool member that fell ill is already out of the choice: the next member is tried at once. */
  private memberTrouble(job: JobRecord, pause: Pause): Pause {
    return job.pool && pause.reason !== 'deferred' ? { reason: 'member_' + pause.reason, until: this.now() } : pause;
  }

  private bagFor(kind: JobKind, job: JobRecord): InputBag {
    const raw: Record<string, unknown> = { ...job.params, [kind.cursorParam]: job.cursor };
    if (kind.amount && raw[kind.amount.param] === undefined) raw[kind.amount.param] = String(kind.amount.max);
    return this.deps.routes.input(kind.route, raw);
  }

  /** Appends the page's new items and the advanced record in one transaction. */
  private async savePage(kind: JobKind, job: JobRecord, body: Record<string, unknown>, iterating?: IteratorRun): Promise<WorkOutcome> {
    const items = Array.isArray(body.items) ? body.items : [];
    const room = job.limit > 0 ? job.limit - job.items : Infinity;
    const entries = items.map((value) => ({ key: itemKey(kind, value), value })).slice(0, Math.max(0, room));
    const read = pagingOf(job, items.length, iterating);
    const next = read.paging === 'iterator' ? '' : String(body[kind.cursorField] ?? '');
    const now = this.now();
    let saved!: JobRecord;
    await this.store.append(listOf(job.id), entries, (added) => {
      const stale = added > 0 ? 0 : read.replaying ? job.stale : job.stale + 1;
      saved = {
        ...job,
        state: 'running',
        paused: undefined,
        items: job.items + added,
        pages: job.pages + 1,
        cursor: next,
        stale,
        paging: read.paging,
        replay: read.replay,
        started_at: job.started_at ?? now,
        updated_at: now,
      };
      return { bucket: BUCKET, key: job.id, value: saved };
    });
    const spent = read.paging === 'iterator' ? read.done : !next || next === job.cursor;
    const finished = spent || saved.stale >= STALE_PAGES || (job.limit > 0 && saved.items >= job.limit);
    if (finished) this.iterators.forget(job.id);
    this.events.notice?.('job.page', { job_id: job.id, items: saved.items });
    if (await this.store.get(CANCELLED, job.id)) return void (await this.finish(saved, 'cancelled'));
    if (finished) return void (await this.finish(saved, 'done'));
    return { delayMs: jittered(this.deps.settings.intervalMs, JITTER) };
  }

  /** The job's session, or a healthy pool member; when there is none, why and until when. */
  private async sessionFor(job: JobRecord): Promise<{ record: SessionRecord } | { pause: Pause }> {
    if (job.pool) {
      try {
        return { record: await this.deps.pools.choose(job.pool) };
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        const until = error.retryAfter !== undefined ? this.now() + error.retryAfter * 1000 : undefined;
        return { pause: { reason: error.status === 429 ? 'throttled' : 'no_healthy_member', until, detail: error.message } };
      }
    }
    const id = job.session ? this.store.open(job.session, job.id) : '';
    const record = id ? await this.deps.sessions.find(id) : undefined;
    const ill = this.paced.blocked(record);
    return ill ? { pause: ill } : { record: record! };
  }

  private async pause(job: JobRecord, pause: Pause): Promise<WorkOutcome> {
    const until = pause.until ?? this.now() + this.deps.settings.recheckMs;
    if (pause.reason.startsWith('member_')) return { retryAt: until };
    const changed = job.state !== 'paused' || job.paused?.reason !== pause.reason;
    await this.store.put(BUCKET, job.id, { ...job, state: 'paused', paused: { ...pause, until }, updated_at: this.now() });
    if (changed) await this.emit('job.paused', job, { reason: pause.reason, until });
    return { retryAt: until };
  }

  private async finish(job: JobRecord, state: 'done' | 'cancelled'): Promise<void> {
    const now = this.now();
    await this.store.put(BUCKET, job.id, { ...job, state, paused: undefined, finished_at: now, updated_at: now });
    if (state === 'done') await this.emit('job.completed', job, { items: job.items, pages: job.pages });
  }

  private async fail(id: string, error: unknown): Promise<void> {
    const job = await this.store.get<JobRecord>(BUCKET, id);
    if (!job || TERMINAL.has(job.state)) return;
    const { excType } = this.deps.routes.statusOf(error);
    const detail = error instanceof HttpError ? error.message : `the page failed ${ATTEMPTS} times (${excType})`;
    const now = this.now();
    await this.store.put(BUCKET, id, { ...job, state: 'failed', error: { exc_type: excType, detail }, finished_at: now, updated_at: now });
    await this.emit('job.failed', job, { exc_type: excType, detail });
  }

  private async emit(type: JobEventType, job: JobRecord, data: Record<string, unknown>): Promise<void> {
    const serial = type === 'job.paused' ? `${job.pages}.${job.paused?.reason ?? ''}` : '';
    // Named by the session's ref, like every event (a pool job belongs to no one session).
    const session = job.session ? sessionRef(this.store.open(job.session, job.id)) : undefined;
    const event = {
      id: `${type}:${job.id}${serial ? ':' + serial : ''}`,
      type,
      timestamp: this.now(),
      session,
      data: { job_id: job.id, route: job.route, pool: job.pool ?? null, account: job.account ?? null, ...data },
    };
    await this.events.emit(event).catch((error) => this.deps.log.warn('job event not emitted', { type, error: String(error) }));
  }
}
