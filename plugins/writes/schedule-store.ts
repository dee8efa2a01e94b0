// Scheduled and deferred writes: a write's checked request kept in the work store (its uploaded
// files in the data folder) and run at its time as one work item of the background layer (BullMQ
// delayed jobs on a shared store, the SQLite queue otherwise), through the route itself
// (services.routes.run, origin 'background'), so the account-safety policy of that moment decides.
// A refusal with Retry-After (budget, activity window, throttle) puts the write off until then; every
// other outcome is final and an event. A write is never sent twice: a run found already under way
// after a restart is failed as an unknown outcome, not sent again.
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpError } from '../../engine/http-error.js';
import { owns, ownerOf } from '../../engine/owner.js';
import { serviceError } from '../../engine/service-errors.js';
import { sessionRef } from '../../engine/session-record.js';
import type {
  BackgroundRoutes,
  Caller,
  Events,
  GuardedCall,
  InputBag,
  Logger,
  Owner,
  SessionService,
  UploadedFile,
  WorkItem,
  WorkLayer,
  WorkOutcome,
} from '../../engine/types.js';
import { KEY_HEADER } from './idempotency.js';
import type { ScheduleSettings } from './schedule-settings.js';

export const WRITE_WORK = 'write';
const BUCKET = 'writes-scheduled';
const FOLDER = 'scheduled-writes';

export type WriteKind = 'scheduled' | 'deferred';
export type WriteState = 'scheduled' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface ScheduledWrite {
  readonly id: string;
  readonly kind: WriteKind;
  readonly route: string;
  /** The checked input as the route's validator passed it, without publish_at and the file fields. */
  readonly bag: InputBag;
  readonly files: readonly UploadedFile[];
  /** The session's id, sealed (a session id grants the account). */
  readonly session: string;
  readonly account: { readonly pk: string; readonly username: string };
  readonly session_ref: string;
  readonly owner: Owner;
  readonly idempotency_key: string | null;
  readonly state: WriteState;
  readonly run_at: number;
  readonly reason: string | null;
  readonly result?: unknown;
  readonly error?: Failure;
  readonly created_at: number;
  readonly updated_at: number;
  readonly finished_at?: number;
}

export interface WritesDeps {
  readonly work: WorkLayer;
  readonly sessions: SessionService;
  readonly routes: BackgroundRoutes;
  readonly log: Logger;
  readonly dataDir: string;
  readonly settings: ScheduleSettings;
  readonly now?: () => number;
}

const WAITING = new Set<WriteState>(['scheduled', 'running']);

export class ScheduledWrites {
  private readonly now: () => number;

  constructor(private readonly deps: WritesDeps) {
    this.now = deps.now ?? Date.now;
  }

  private get events(): Events {
    return this.deps.work.events; // read each time: the events module installs its outbox at boot
  }

  private get store() {
    return this.deps.work.store;
  }

  install(): void {
    this.deps.work.queue.define<{ id: string }>(WRITE_WORK, (item) => this.step(item), { concurrency: 4 });
  }

  // -- Requests ------------------------------------------------------------------------------

  /** Keeps the call's checked request and files, and queues it for `runAt`. */
  async create(call: GuardedCall, kind: WriteKind, runAt: number, reason?: string): Promise<ScheduledWrite> {
    const session = call.session;
    if (!session) throw serviceError('SessionRequired', 'A write that runs later acts for a session (X-Session-ID)');
    await this.checkRoom(session.account.pk, call.files);
    const id = randomBytes(12).toString('base64url');
    const now = this.now();
    const fileFields = new Set(call.route.params.filter((p) => p.in === 'file').map((p) => p.name));
    const bag = Object.fromEntries(Object.entries(call.bag).filter(([name]) => name !== 'publish_at' && !fileFields.has(name)));
    const write: ScheduledWrite = {
      id,
      kind,
      route: call.route.key,
      bag,
      files: await this.keep(id, call.files),
      session: this.store.seal(session.id, id),
      account: session.account,
      session_ref: sessionRef(session.id),
      owner: ownerOf(call.caller),
      idempotency_key: call.header?.(KEY_HEADER) || null,
      state: 'scheduled',
      run_at: runAt,
      reason: reason ?? null,
      created_at: now,
      updated_at: now,
    };
    await this.store.put(BUCKET, id, write);
    await this.deps.work.queue.add(WRITE_WORK, id, { id }, { delayMs: this.sleepUntil(runAt) });
    return write;
  }

  /** The write; with a caller, another owner's answers 404 as an unknown one. */
  async get(id: string, caller?: Caller): Promise<ScheduledWrite> {
    const write = await this.store.get<ScheduledWrite>(BUCKET, id);
    if (!write || (caller && !owns(caller, write.owner))) {
      throw serviceError('ResourceNotFound', 'No scheduled write with that id', { hint: 'GET /writes/scheduled lists the scheduled writes.' });
    }
    return write;
  }

  /** The caller's writes (of one account when given), newest first. */
  async list(caller: Caller | undefined, of: { pk?: string; state?: string }, limit = 1000): Promise<ScheduledWrite[]> {
    const all = (await this.store.list<ScheduledWrite>(BUCKET)).map((d) => d.value);
    const mine = all.filter((w) => (!of.pk || w.account.pk === of.pk) && (!of.state || w.state === of.state) && (!caller || owns(caller, w.owner)));
    return mine.sort((a, b) => b.created_at - a.created_at).slice(0, limit);
  }

  /** Cancels a write that has not started; one under way or finished is answered as it is. */
  async cancel(id: string, caller?: Caller): Promise<ScheduledWrite> {
    await this.get(id, caller);
    const now = this.now();
    const after = await this.store.update<ScheduledWrite>(BUCKET, id, (w) =>
      w?.state === 'scheduled' ? { ...w, state: 'cancelled', finished_at: now, updated_at: now } : undefined,
    );
    if (after?.state !== 'cancelled') return after!;
    await this.deps.work.queue.remove(WRITE_WORK, id);
    await this.forgetFiles(id);
    return after;
  }

  /** Refuses a write that would keep more waiting writes of the account, or more bytes of files, than the settings allow. */
  private async checkRoom(pk: string, files: readonly UploadedFile[]): Promise<void> {
    const waiting = (await this.store.list<ScheduledWrite>(BUCKET)).map((d) => d.value).filter((w) => WAITING.has(w.state));
    const { maxPending, maxBytes } = this.deps.settings;
    if (waiting.filter((w) => w.account.pk === pk).length >= maxPending) {
      throw serviceError('ScheduleFull', `The account has ${maxPending} writes waiting to run (SOCIALGATE_SCHEDULE_MAX_PENDING)`);
    }
    const kept = waiting.reduce((sum, w) => sum + w.files.reduce((n, f) => n + f.size, 0), 0);
    const adding = files.reduce((n, f) => n + f.size, 0);
    if (adding > 0 && kept + adding > maxBytes) {
      throw serviceError('ScheduleFull', `Waiting writes keep ${kept} bytes of files; ${adding} more is over SOCIALGATE_SCHEDULE_MAX_MB`);
    }
  }

  /** Copies the request's files into the data folder: the request's own are removed once it is answered. */
  private async keep(id: string, files: readonly UploadedFile[]): Promise<UploadedFile[]> {
    if (files.length === 0) return [];
    const folder = join(this.deps.dataDir, FOLDER, id);
    await mkdir(folder, { recursive: true });
    return Promise.all(
      files.map(async (file, index) => {
        const path = join(folder, `${index}-${file.field}`);
        await copyFile(file.path, path);
        return { ...file, path };
      }),
    );
  }

  private forgetFiles(id: string): Promise<void> {
    return rm(join(this.deps.dataDir, FOLDER, id), { recursive: true, force: true });
  }

  // -- One run -------------------------------------------------------------------------------

  private async step(item: WorkItem<{ id: string }>): Promise<WorkOutcome> {
    const write = await this.store.get<ScheduledWrite>(BUCKET, item.data.id);
    if (!write) return;
    if (write.state === 'running') return this.finish(write, { failed: UNKNOWN_OUTCOME });
    if (write.state !== 'scheduled') return;
    if (write.run_at > this.now()) return { delayMs: this.sleepUntil(write.run_at) };
    if (!(await this.claim(write.id))) return;
    const record = await this.deps.sessions.find(this.store.open(write.session, write.id));
    const route = this.deps.routes.route(write.route);
    if (!record || !route) {
      const gone = serviceError('SessionNotFound', 'The session that scheduled the write is gone (revoked or logged out)');
      return this.finish(write, { failed: this.errorOf(gone) });
    }
    const run = await this.runFiles(write);
    try {
      const result = await this.deps.routes.run(route, { ...write.bag, ...run.bag }, record, item.signal, { files: run.files, header: keyHeader(write) });
      return await this.finish(write, { result, status: route.result.options.status as number | undefined });
    } catch (error) {
      const refused = this.deps.routes.statusOf(error);
      const later = refused.retryAfter !== undefined && (refused.status === 429 || refused.status === 503);
      if (later) return this.putOff(write, refused.retryAfter!, refused.excType);
      return this.finish(write, { failed: this.errorOf(error) });
    } finally {
      await rm(run.folder, { recursive: true, force: true });
    }
  }

  /** Marks the write running, unless it was cancelled (or taken) meanwhile. */
  private async claim(id: string): Promise<boolean> {
    let claimed = false;
    await this.store.update<ScheduledWrite>(BUCKET, id, (w) => {
      if (w?.state !== 'scheduled') return undefined;
      claimed = true;
      return { ...w, state: 'running', updated_at: this.now() };
    });
    return claimed;
  }

  /** A fresh copy of the kept files for this run: the upload step renames what it is given. */
  private async runFiles(write: ScheduledWrite): Promise<{ folder: string; files: UploadedFile[]; bag: InputBag }> {
    const folder = await mkdtemp(join(tmpdir(), 'socialgate-write-'));
    const files = await Promise.all(
      write.files.map(async (file, index) => {
        const path = join(folder, `${index}-${file.field}`);
        await copyFile(file.path, path);
        return { ...file, path };
      }),
    );
    const route = this.deps.routes.route(write.route);
    const bag: InputBag = {};
    for (const param of route?.params.filter((p) => p.in === 'file') ?? []) {
      const paths = files.filter((f) => f.field === param.name).map((f) => f.path);
      if (paths.length) bag[param.name] = param.repeated ? paths : paths[0];
    }
    return { folder, files, bag };
  }

  private async putOff(write: ScheduledWrite, seconds: number, reason: string): Promise<WorkOutcome> {
    const runAt = this.now() + seconds * 1000;
    await this.store.update<ScheduledWrite>(BUCKET, write.id, (w) =>
      w?.state === 'running' ? { ...w, state: 'scheduled', run_at: runAt, reason, updated_at: this.now() } : undefined,
    );
    return { delayMs: this.sleepUntil(runAt) };
  }

  /** How long the queue sleeps before the item looks again: until `runAt` on the service's clock, at most the recheck. */
  private sleepUntil(runAt: number): number {
    return Math.max(0, Math.min(runAt - this.now(), this.deps.settings.recheckMs));
  }

  private async finish(write: ScheduledWrite, outcome: { result?: unknown; status?: number; failed?: Failure }): Promise<void> {
    const now = this.now();
    const failed = outcome.failed;
    const state = failed ? 'failed' : 'completed';
    const done: ScheduledWrite = { ...write, state, result: failed ? undefined : outcome.result, error: failed, finished_at: now, updated_at: now };
    await this.store.put(BUCKET, write.id, done);
    await this.forgetFiles(write.id);
    const data = failed ? { ...failed } : { result: outcome.result ?? null, status: outcome.status ?? 200 };
    await this.emit(failed ? 'write.failed' : 'write.completed', done, data);
  }

  private errorOf(error: unknown): Failure {
    const { status, excType } = this.deps.routes.statusOf(error);
    const detail = error instanceof HttpError ? error.message : `the write failed (${excType})`;
    return { exc_type: excType, detail, status };
  }

  private async emit(type: string, write: ScheduledWrite, data: Record<string, unknown>): Promise<void> {
    const event = {
      id: `${type}:${write.id}`,
      type,
      timestamp: this.now(),
      session: write.session_ref,
      data: { write_id: write.id, kind: write.kind, route: write.route, account: write.account, idempotency_key: write.idempotency_key, ...data },
    };
    await this.events.emit(event).catch((error) => this.deps.log.warn('write event not emitted', { type, error: String(error) }));
  }
}

interface Failure {
  readonly exc_type: string;
  readonly detail: string;
  readonly status: number;
}

/** A run found under way when its item comes again: the instance stopped mid-call, and the platform may have the write. */
const UNKNOWN_OUTCOME: Failure = {
  exc_type: 'WriteOutcomeUnknown',
  status: 502,
  detail: 'The instance stopped while this write was being sent; it was not sent again. Check the account before sending it again.',
};

/**
 * A run's headers (the engine's one channel to guards, as HTTP's and MCP's `_meta` are): an
 * Idempotency-Key per scheduled write, whatever the request's own was (that one answered the 202).
 */
function keyHeader(write: ScheduledWrite): (name: string) => string {
  return (name) => (name.toLowerCase() === KEY_HEADER.toLowerCase() ? `scheduled-${write.id}` : '');
}
