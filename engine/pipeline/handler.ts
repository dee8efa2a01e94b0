// One route's pipeline, built once at boot: session → parse → coerce → validate → resolve →
// invoke → shape → respond. Each step is a small function in this folder.
import type { Middleware } from 'koa';
import type { ParamProblem } from '../http-error.js';
import { invalidParams, serviceError } from '../service-errors.js';
import { compareVersions, VERSION } from '../versions.js';
import type { Typer } from '../typing.js';
import type { RouteValidator } from '../validate.js';
import { checkKey } from '../owner.js';
import type {
  FileMaker,
  GuardedCall,
  GuardStep,
  InputBag,
  KeyGrant,
  ParamSpec,
  Plugin,
  ResolveContext,
  Resolver,
  ResolveSpec,
  RouteGuard,
  RouteSpec,
  Services,
  SessionClient,
  SessionFinder,
  SessionRecord,
  BoundSessionSource,
  ShapeEntry,
  StreamResult,
} from '../types.js';
import { bodyParserFor, type BodyLimits } from './body.js';
import { compileInvoker, type Invoker } from './invoke.js';
import { checkConstraints, inputReader, type ValuesReader } from './params.js';
import { RequestState } from './request.js';
import { fileFromPath, replyMeta, respond } from './respond.js';
import { findSession, sessionIdFrom, sessionRequired } from './session.js';
import type { LRUCache } from 'lru-cache';

export interface RouteDeps {
  readonly services: Services;
  readonly validator: RouteValidator;
  readonly shape: ShapeEntry;
  readonly plugin?: Plugin;
  /** What the plugin's module made for this app, handed to the plugin (engine/module-start.ts). */
  readonly parts?: unknown;
  readonly resolvers: Readonly<Record<string, Resolver>>;
  readonly resolverCache: LRUCache<string, NonNullable<unknown>>;
  readonly limits: BodyLimits;
  /** Builds the zip stream for the `files` shape (injected: the engine knows no archive format). */
  readonly zip: (paths: readonly string[], filename: string) => StreamResult;
  readonly contentType: (path: string) => string;
  /** Types the shaped body by the route's schema, for an upstream whose results need it (engine/typing.ts). */
  readonly typer?: Typer;
  /** The features' steps around the upstream work (policy, idempotency), outermost first; bound per route below. */
  readonly guards?: readonly RouteGuard[];
  /** The features' session sources (X-Pool), tried when a request names no session by id. */
  readonly sessionSources?: readonly BoundSessionSource[];
}

/**
 * The transport-neutral steps of one route, from a found session and read input to the shaped
 * value: validate → resolve → invoke → shape. HTTP (routeHandler) and MCP tools both call it, so
 * a tool call meets the same checks, lane, governor and single upstream call as a request.
 */
export type RouteRunner = (state: RequestState, problems: ParamProblem[], signal: () => AbortSignal) => Promise<unknown>;

export function routeRunner(route: RouteSpec, deps: RouteDeps): RouteRunner {
  const needsWorkdir = usesWorkdir(route);
  const invoke = compileInvoker(route);
  const resolve = compileResolve(route, deps);
  const admit = admission(route, deps.validator, () => deps.services.upstream.library.version);
  const files = fileMaker(route, deps);
  const { sessions } = deps.services;
  const work: RouteRunner = async (state, _problems, signal) => {
    const session = state.session;
    const own = session ? sessions.client(session) : sessions.anonymous();
    const client = state.via ? state.via(own) : own;
    if (resolve) {
      const resolving = resolve(state.bag, client, session);
      if (resolving) await resolving;
    }
    if (needsWorkdir) state.bag._workdir = await state.workdir();
    const value = deps.plugin ? await deps.plugin.handle(pluginInput(route, state, client, deps, invoke, signal())) : await invoke(state.bag, client);
    return shaped(route, value, state, deps, files);
  };
  const guarded = guardedWork(route, deps, work);
  return (state, problems, signal) => {
    admit(state, problems);
    return guarded(state, problems, signal);
  };
}

/**
 * The route's guards bound once, wrapped around its work outermost first; a route no guard binds
 * to (every read, without a policy) runs its work directly, at no cost.
 */
function guardedWork(route: RouteSpec, deps: RouteDeps, work: RouteRunner): RouteRunner {
  const steps = (deps.guards ?? []).map((guard) => guard.bind(route, deps.services)).filter((step): step is GuardStep => !!step);
  if (steps.length === 0) return work;
  // Composed once: a request builds its call and one `next` per step, no index walk.
  type Chain = (call: GuardedCall, state: RequestState, problems: ParamProblem[], signal: () => AbortSignal) => Promise<unknown>;
  const chain = steps.reduceRight<Chain>(
    (inner, step) => (call, state, problems, signal) => step(call, () => inner(call, state, problems, signal)),
    (_call, state, problems, signal) => work(state, problems, signal),
  );
  return (state, problems, signal) => {
    const call = new Guarded(route, state, signal);
    return chain(call, state, problems, signal);
  };
}

/**
 * What a guard sees of one call: the request's state copied into fields, the caller and the signal
 * made only when a guard asks (an object literal with a getter cost a slow property definition per
 * request, and the caller three allocations).
 */
class Guarded implements GuardedCall {
  readonly origin: GuardedCall['origin'];
  readonly requestId: string;
  readonly bag: GuardedCall['bag'];
  readonly files: GuardedCall['files'];
  readonly session: GuardedCall['session'];
  readonly header: GuardedCall['header'];
  readonly reply: GuardedCall['reply'];

  constructor(
    readonly route: RouteSpec,
    private readonly state: RequestState,
    private readonly abort: () => AbortSignal,
  ) {
    ({ origin: this.origin, requestId: this.requestId, bag: this.bag, files: this.files, session: this.session } = state);
    ({ header: this.header, reply: this.reply } = state);
  }

  get caller() {
    return this.state.caller;
  }

  get signal() {
    return this.abort();
  }
}

export function routeHandler(route: RouteSpec, deps: RouteDeps, run: RouteRunner = routeRunner(route, deps)): Middleware {
  const parseBody = bodyParserFor(route, deps.limits);
  const readInput = inputReader(route);
  const { sessions, usage } = deps.services;
  // Where a session can come from besides its id (a pool member for a read), bound once.
  const lent = sessionSources(route, deps);
  // One async frame per request: the state settles in `finally` however the handler ends (answered,
  // thrown or cut off), and its temp files wait for that.
  return async (ctx) => {
    ctx.state.route = route.key; // the metrics label and the log's route
    const state = new RequestState(ctx.state.requestId as string, ctx.res);
    state.header = (name) => ctx.get(name);
    if (deps.plugin) state.address = ctx.ip; // only plugins read it (Koa works the address out per ask)
    let failed = true;
    try {
      // A header or query session is checked before a large body is read; the legacy form field
      // and cookie after it, form first (the documented order).
      const given = route.session === 'none' ? undefined : headerOrQuerySession(ctx);
      state.key = ctx.state.key as KeyGrant | undefined;
      let session = given ? (sessions.peek(given) ?? (await findSession(given, sessions))) : undefined;
      if (!session && lent) {
        session = await lent({ header: (name) => ctx.get(name), caller: state.caller });
        state.borrowed = !!session;
      }
      if (parseBody) await parseBody(ctx, state);
      if (!session && route.session !== 'none') session = await findSession(sessionIdFrom(ctx), sessions);
      state.session = session;
      let value: unknown;
      try {
        value = await run(state, readInput(ctx, state), () => abortOnDisconnect(ctx));
      } catch (error) {
        replyMeta(ctx, state); // a guard's headers go on its refusal too (RateLimit with a 429)
        throw error;
      }
      const writing = respond(ctx, route, value, state);
      if (writing) await writing;
      failed = false;
    } finally {
      if (state.session) usage.count(state.session.id, route.area, failed);
      state.settle();
    }
  };
}

function headerOrQuerySession(ctx: Parameters<Middleware>[0]): string | undefined {
  return ctx.get('x-session-id').trim() || (typeof ctx.query.sessionid === 'string' ? ctx.query.sessionid : undefined) || undefined;
}

/** The feature modules' session sources bound to the route, tried in order; undefined when none binds. */
function sessionSources(route: RouteSpec, deps: RouteDeps): SessionFinder | undefined {
  const finders = (deps.sessionSources ?? []).map((source) => source.bind(route, deps.services)).filter((finder): finder is SessionFinder => !!finder);
  if (finders.length === 0) return undefined;
  return async (request) => {
    for (const find of finders) {
      const found = await find(request);
      if (found) return found;
    }
    return undefined;
  };
}

/** The first step of a run: a session when the route needs one, then valid input; throws otherwise. */
export type Admission = (state: RequestState, problems: ParamProblem[]) => void;

/** A route's steps, bound at boot: its runner and its input reader. */
export interface RouteSteps {
  readonly run: RouteRunner;
  /** The run's first step alone (session, validation): what a download link is checked with. */
  readonly admit: Admission;
  /** Validation alone (no session needed): what a background job's input is checked with. */
  readonly check: Admission;
  readonly readValues: ValuesReader;
}

export function admission(route: RouteSpec, validator: RouteValidator, library?: () => string): Admission {
  const gated = library ? route.params.filter((param) => param.since) : [];
  const needs = library && route.since;
  return (state, problems) => {
    checkKey(route, state.caller, state.borrowed ? undefined : state.session?.account);
    if (needs) routeTooNew(route, library!());
    if (!state.session && route.session === 'required') throw sessionRequired();
    if (gated.length) problems.push(...tooNew(gated, state.bag, library!()));
    validateInput(route, state, problems, validator);
  };
}

/**
 * A route a newer upstream library added (manifest `since`), asked of an older one: refused by name
 * before the session or any call. An unknown version lets the library's own answer decide.
 */
function routeTooNew(route: RouteSpec, version: string): void {
  if (!VERSION.test(version) || compareVersions(version, route.since!) >= 0) return;
  throw serviceError('LibraryTooOld', `${route.key} needs aiograpi ${route.since} or later; the running aiograpi is ${version}`);
}

/**
 * Optional parameters a newer upstream library added (manifest `since`), given to an older one:
 * refused by name before any call. An unknown version (no sidecar started yet) lets the sidecar's
 * own keyword check decide.
 */
function tooNew(gated: readonly ParamSpec[], bag: InputBag, version: string): ParamProblem[] {
  if (!VERSION.test(version)) return [];
  return gated
    .filter((param) => bag[param.name] !== undefined && compareVersions(version, param.since!) < 0)
    .map((param) => ({ param: param.name, problem: `needs aiograpi ${param.since} or later; the running aiograpi is ${version} (leave it out, or upgrade)` }));
}

/** Validation alone, for input checked before any session is at hand (a job's parameters when it is started). */
export function inputCheck(route: RouteSpec, validator: RouteValidator, library?: () => string): Admission {
  const needs = library && route.since;
  return (state, problems) => {
    if (needs) routeTooNew(route, library!());
    validateInput(route, state, problems, validator);
  };
}

function validateInput(route: RouteSpec, state: RequestState, problems: ParamProblem[], validator: RouteValidator): void {
  const schema = validator(state.bag);
  const rules = checkConstraints(route, state.bag);
  if (problems.length === 0 && schema.length === 0 && rules.length === 0) return;
  const later = [...schema, ...rules];
  // A parameter that failed coercion is reported once, by the coercer, not again by the schema.
  const named = new Set(problems.map((p) => p.param));
  for (const problem of later) if (!named.has(problem.param)) problems.push(problem);
  throw invalidParams(problems);
}

type Resolve = (bag: InputBag, client: SessionClient, session: SessionRecord | undefined) => Promise<void> | void;
type Step = { readonly spec: ResolveSpec; readonly resolver: Resolver };

/** The route's resolver steps, bound at boot; synchronous steps (most) cost no promise. */
function compileResolve(route: RouteSpec, deps: RouteDeps): Resolve | undefined {
  if (route.resolve.length === 0) return undefined;
  const steps: Step[] = route.resolve.map((spec) => ({ spec, resolver: deps.resolvers[spec.by] }));
  const cache = { get: (k: string) => deps.resolverCache.get(k), set: (k: string, v: unknown) => void deps.resolverCache.set(k, v as NonNullable<unknown>) };
  return (bag, client, session) => runSteps(steps, 0, bag, { call: client.call, cache, scope: session?.account.pk ?? 'anonymous' });
}

function runSteps(steps: readonly Step[], from: number, bag: InputBag, ctx: ResolveContext): Promise<void> | void {
  for (let index = from; index < steps.length; index++) {
    const pending = steps[index].resolver.resolve(bag, steps[index].spec, ctx);
    if (pending) return pending.then(() => runSteps(steps, index + 1, bag, ctx));
  }
}

function usesWorkdir(route: RouteSpec): boolean {
  return route.calls.some((call) => Object.values(call.args).some((source) => 'from' in source && source.from === '_workdir'));
}

/** How the route's file shapes make what the responder sends: bound once, at boot. */
function fileMaker(route: RouteSpec, deps: RouteDeps): FileMaker {
  return {
    file: (path) => fileFromPath(path, deps.contentType),
    zip: (paths) => deps.zip(paths, `${route.id}.zip`),
  };
}

function shaped(route: RouteSpec, value: unknown, state: RequestState, deps: RouteDeps, files: FileMaker): unknown {
  const body = deps.shape.shape(value, route.result, state.bag, files);
  return deps.typer ? deps.typer(body) : body;
}

/** Aborted when the client goes away before the response is written (long fetches stop early). */
function abortOnDisconnect(ctx: Parameters<Middleware>[0]): AbortSignal {
  const controller = new AbortController();
  const gone = (): void => {
    if (!ctx.res.writableFinished) controller.abort(new Error('client disconnected'));
  };
  // A client that left while the body was read has already closed the response: no 'close' follows.
  if (ctx.res.destroyed) gone();
  else ctx.res.once('close', gone);
  return controller.signal;
}

function pluginInput(route: RouteSpec, state: RequestState, client: SessionClient, deps: RouteDeps, invoke: Invoker, signal: AbortSignal) {
  return {
    signal,
    route,
    input: state.bag,
    files: state.files,
    session: state.session,
    caller: state.caller,
    address: state.address,
    client: state.session ? client : undefined,
    services: deps.services,
    parts: deps.parts,
    requestId: state.requestId,
    header: state.header,
    invoke: (bag: InputBag) => invoke(bag, client),
    workdir: () => state.workdir(),
    defer: (task: () => Promise<void> | void) => state.defer(task),
  };
}
