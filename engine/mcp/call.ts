// One tool call through the route's own pipeline: the session (as HTTP finds it), the arguments
// turned into the raw values a form would carry (so the same coercers read them), then the route
// runner: validation, resolvers, lane, governor, one upstream call, shaping. Errors become tool
// errors with the body HTTP would write.
import type { Readable } from 'node:stream';
import type { CallToolResult, LoggingLevel } from '@modelcontextprotocol/server';
import { mapError } from '../errors.js';
import type { RouteSteps } from '../pipeline/handler.js';
import type { RawValues } from '../pipeline/params.js';
import { RequestState } from '../pipeline/request.js';
import { findSession } from '../pipeline/session.js';
import { HttpError } from '../http-error.js';
import { stackWithoutMessage } from '../log.js';
import {
  UpstreamError,
  type ErrorTable,
  type KeyGrant,
  type FileResult,
  type JsonText,
  type Logger,
  type RouteSpec,
  type SessionService,
  type StreamResult,
} from '../types.js';
import type { ToolEntry } from './tools.js';

/** Who is calling: what the transport knows of the MCP request. */
export interface Caller {
  readonly sessionId?: string;
  readonly requestId: string;
  /** Origin the caller reached the service at, for download links. */
  readonly baseUrl: string;
  readonly signal?: AbortSignal;
  /** The request's API key, checked by the route's steps as HTTP's is. */
  readonly key?: KeyGrant;
  /** The API key's name (`default` for the deployment's one key, `none` without one): the audit's who. */
  readonly keyName: string;
  /** The protocol generation the request speaks: `modern` (2026-07-28) or `legacy` (2025, stateless here). */
  readonly era?: 'modern' | 'legacy';
  /** The log level a 2026-07-28 request carries in its envelope. */
  readonly logLevel?: LoggingLevel;
  /**
   * The tool call's `_meta`: where a call carries what HTTP puts in a request header (`Idempotency-Key`,
   * `Prefer`), under the header's name (any case), as a string.
   */
  readonly meta?: Readonly<Record<string, unknown>>;
}

export interface CallDeps {
  readonly sessions: SessionService;
  readonly log: Logger;
  readonly errors: ErrorTable;
  readonly steps: (route: RouteSpec) => RouteSteps;
}

export async function callTool(entry: ToolEntry, args: Readonly<Record<string, unknown>>, caller: Caller, deps: CallDeps): Promise<CallToolResult> {
  const state = new RequestState(caller.requestId);
  state.origin = 'mcp';
  state.key = caller.key;
  if (caller.meta) state.header = metaHeaders(caller.meta);
  try {
    const { run, admit, readValues } = deps.steps(entry.route);
    state.session = await sessionOf(entry.route, caller.sessionId, deps.sessions);
    const raw = rawValues(args);
    const problems = readValues(raw, undefined, state);
    // A download is admitted like any call, then answered with its link: the GET runs it.
    if (entry.link) {
      admit(state, problems);
      return answer(linkTo(entry.route, raw, caller.baseUrl));
    }
    const value = await run(state, problems, () => caller.signal ?? new AbortController().signal);
    return answer(structured(entry, await settleFile(value)));
  } catch (error) {
    if (!(error instanceof HttpError) && !(error instanceof UpstreamError))
      deps.log.error('unhandled error', { request_id: caller.requestId, ...(caller.key ? { key: caller.key.name } : {}), error: stackWithoutMessage(error) });
    return toolError(error, deps.errors, caller.requestId);
  } finally {
    state.settle();
  }
}

/** A request header as a tool call carries it: the `_meta` entry of that name, any case; '' when absent or not text. */
function metaHeaders(meta: Readonly<Record<string, unknown>>): (name: string) => string {
  const byName = new Map(Object.entries(meta).map(([name, value]) => [name.toLowerCase(), value]));
  return (name) => {
    const value = byName.get(name.toLowerCase());
    return typeof value === 'string' ? value : '';
  };
}

async function sessionOf(route: RouteSpec, id: string | undefined, sessions: SessionService) {
  if (route.session === 'none' || !id) return undefined;
  return sessions.peek(id) ?? (await findSession(id, sessions));
}

/**
 * Arguments as the strings an HTML form would send: a list is one value per item, an object (a
 * JSON parameter) its JSON text. The route's coercers then read them exactly as they read HTTP.
 */
export function rawValues(args: Readonly<Record<string, unknown>>): RawValues {
  const raw: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || value === null) continue;
    raw[name] = Array.isArray(value) ? value.map(text) : text(value);
  }
  return raw;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

function linkTo(route: RouteSpec, raw: RawValues, baseUrl: string): { url: string; method: 'GET' } {
  const url = new URL(route.path, baseUrl);
  for (const [name, value] of Object.entries(raw)) for (const one of ([] as unknown[]).concat(value)) url.searchParams.append(name, String(one));
  return { url: url.href, method: 'GET' };
}

/** A file or stream a plugin answered with is closed and described, never read into the answer. */
async function settleFile(value: unknown): Promise<unknown> {
  if (!value || typeof value !== 'object') return value;
  const kind = (value as { kind?: unknown }).kind;
  if (kind === 'json') return JSON.parse((value as JsonText).text) as unknown;
  if (kind !== 'file' && kind !== 'stream') return value;
  const file = value as FileResult | StreamResult;
  if ('stream' in file) (file.stream as Readable).destroy();
  await file.cleanup?.();
  return { filename: file.filename, content_type: file.contentType };
}

function structured(entry: ToolEntry, value: unknown): Record<string, unknown> {
  return entry.wrapped ? { result: value } : (value as Record<string, unknown>);
}

function answer(content: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(content) }], structuredContent: content };
}

// HTTP's 422 names each bad parameter and needs no hint; an agent is helped by where to look.
const ARGUMENTS_HINT = "Fix the arguments `errors` names; the tool's input schema gives the type and bounds of each.";

/** Where a tool error's status and exc_type ride beside its text, for programs (and the audit). */
export const ERROR_META = 'socialgate/error';

/**
 * The body HTTP would write (detail, exc_type, hint, errors), with the status it would have had, as
 * text: an error never carries structured content, because a tool's output schema describes its
 * answer, and clients (SDK 1.x) reject structured content that does not match it.
 */
export function toolError(error: unknown, errors: ErrorTable, requestId: string): CallToolResult {
  const mapped = mapError(error, errors);
  const hint = mapped.body.hint ?? (mapped.body.exc_type === 'ValidationError' ? ARGUMENTS_HINT : undefined);
  const body = {
    ...mapped.body,
    ...(hint ? { hint } : {}),
    status: mapped.status,
    request_id: requestId,
    ...(mapped.retryAfter !== undefined ? { retry_after: mapped.retryAfter } : {}),
  };
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(body) }],
    _meta: { [ERROR_META]: { status: mapped.status, exc_type: mapped.body.exc_type } },
  };
}

/** How a tool call ended: `ok`, or its error's exc_type and status. */
export function outcomeOf(result: CallToolResult): { outcome: string; status: number } {
  if (!result.isError) return { outcome: 'ok', status: 200 };
  const meta = result._meta?.[ERROR_META] as { status: number; exc_type: string } | undefined;
  return { outcome: meta?.exc_type ?? 'ToolError', status: meta?.status ?? 500 };
}
