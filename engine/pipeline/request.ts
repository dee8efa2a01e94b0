// The per-request state every step reads and writes: what route, what the client sent, what has
// to be cleaned up after the response.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import type { Caller, CallOrigin, ClientVia, InputBag, KeyGrant, ReplyMeta, SessionRecord, UploadedFile } from '../types.js';

type Cleanup = () => Promise<void> | void;

export class RequestState {
  readonly bag: InputBag = {};
  files: UploadedFile[] = [];
  session?: SessionRecord;
  /** The request's API key (undefined when the service has none, and for background work). */
  key?: KeyGrant;
  /** The client's address (HTTP requests to a plugin's route: the only readers). */
  address?: string;
  /** The session was lent by a feature's session source (a pool member for an X-Pool read): it is not the caller's own. */
  borrowed = false;
  /** Background work's own reading of the route's upstream calls (a job paging through an iterator); the session's client otherwise. */
  via?: ClientVia;
  /** Who runs the route: an HTTP request, an MCP tool call, or background work (route guards read it). */
  origin: CallOrigin = 'http';
  /** Headers (and a status) the route's guards add to the answer; the engine writes them. */
  readonly reply: ReplyMeta = { headers: {} };
  /** A request header ('' when absent): HTTP's, or an MCP tool call's `_meta` entry (SSE's Last-Event-ID, Idempotency-Key). */
  header?: (name: string) => string;
  private readonly cleanups: Cleanup[] = [];
  private workdirPromise?: Promise<string>;
  /** Set once the cleanups have run: anything deferred later runs at once. */
  private cleaned = false;

  constructor(
    readonly requestId: string,
    private readonly response?: ServerResponse,
  ) {}

  /** Who asks: its key and its own session's account. */
  get caller(): Caller {
    const account = this.borrowed ? undefined : this.session?.account.pk;
    // Built field by field: spreads of small objects cost three allocations a request.
    const caller: { key?: KeyGrant; account?: string } = {};
    if (this.key) caller.key = this.key;
    if (account) caller.account = account;
    return caller;
  }

  /** A private folder for this request (mode 0700 by mkdtemp), removed after the response. */
  workdir(): Promise<string> {
    this.workdirPromise ??= mkdtemp(join(tmpdir(), 'socialgate-')).then((dir) => {
      this.defer(() => rm(dir, { recursive: true, force: true }));
      return dir;
    });
    return this.workdirPromise;
  }

  /**
   * Register cleanup for after the response. A task deferred after the cleanups ran (a step that
   * finished after its client left) runs at once, so nothing it names outlives the request.
   */
  defer(cleanup: Cleanup): void {
    if (this.cleaned) void runQuietly(cleanup);
    else this.cleanups.push(cleanup);
  }

  /**
   * Called once the handler has settled, however it ended. Cleanup then waits for the response to
   * close (a file may still be streaming) unless it already has: a client that hung up early has
   * closed it before any cleanup was registered, and its 'close' event will not come again.
   */
  settle(): void {
    if (this.cleanups.length === 0) {
      this.cleaned = true; // most requests: nothing to wait for, no listener
      return;
    }
    const response = this.response;
    if (!response || response.destroyed) void this.cleanup();
    else response.once('close', () => void this.cleanup());
  }

  /** Runs every cleanup, newest first; a failing cleanup never hides the others. */
  async cleanup(): Promise<void> {
    this.cleaned = true;
    for (const task of this.cleanups.splice(0).reverse()) await runQuietly(task);
  }
}

async function runQuietly(task: Cleanup): Promise<void> {
  try {
    await task();
  } catch {
    // a temp file that is already gone is fine
  }
}
