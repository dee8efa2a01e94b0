// Route guards: a feature's step around a route's upstream work (the account-safety policy's
// budgets, exactly-once writes' idempotency keys). Every caller meets them in the same place, the
// route runner (HTTP requests, MCP tool calls, job pages, pool reads), after the key check and the
// input's validation and before any resolver or upstream call. The engine knows none by name: the
// composition root hands it the list, outermost first.
import type { RouteSpec } from './route.js';
import type { Caller, InputBag, SessionRecord, UploadedFile } from '../types.js';
import type { Services } from './plugins.js';

/** Who runs the route: what a guard may treat differently (background work spends no interactive budget). */
export type CallOrigin = 'http' | 'mcp' | 'background';

/** What a guard sees of one call, and the little it may add to the answer. */
export interface GuardedCall {
  readonly route: RouteSpec;
  readonly origin: CallOrigin;
  readonly requestId: string;
  readonly bag: InputBag;
  readonly files: readonly UploadedFile[];
  readonly session?: SessionRecord;
  readonly caller: Caller;
  /** A request header ('' when absent): HTTP's, or an MCP tool call's `_meta` entry of that name (Idempotency-Key, Prefer). */
  readonly header?: (name: string) => string;
  /** Aborted when the caller goes away. */
  readonly signal: AbortSignal;
  /** Headers the engine writes on the answer, success or error (RateLimit, Idempotent-Replayed). */
  readonly reply: ReplyMeta;
}

/** Response metadata a guard sets; only the engine writes it (respond.ts, and the error writer for failures). */
export interface ReplyMeta {
  readonly headers: Record<string, string>;
  /** A status other than the route's (202 for a deferred write, a replayed answer's stored status). */
  status?: number;
}

/** The rest of the run: resolvers, the one upstream call, shaping; answers the shaped body. */
export type GuardNext = () => Promise<unknown>;

export type GuardStep = (call: GuardedCall, next: GuardNext) => Promise<unknown>;

export interface RouteGuard {
  /** For logs and the boot's duplicate check. */
  readonly name: string;
  /** Bound once per route at boot: undefined when the guard has nothing to do for it (most guards skip reads or writes). */
  bind(route: RouteSpec, services: Services): GuardStep | undefined;
  /** Releases what the guard opened (its store connections) when the app closes. */
  close?(): Promise<void>;
}
