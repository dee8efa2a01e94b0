// What stands between an agent and the platform beyond the route's own pipeline: the writes a
// human must confirm (SOCIALGATE_MCP_CONFIRM, asked through elicitation when the client can, else
// refused naming the setting), progress for long tools, a log notification per call, and the audit
// entry. The call itself still goes through the route runner, so every admission step the runner
// gains (budgets, idempotency) applies to tools with no change here.
import {
  inputRequired,
  inputResponse,
  type CallToolResult,
  type InputRequiredResult,
  type LoggingLevel,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { serviceError } from '../service-errors.js';
import { sessionRef } from '../session-record.js';
import type { ConfirmClass, RouteSpec, ToolAudit } from '../types.js';
import { withoutSecrets } from './audit.js';
import { callTool, outcomeOf, toolError, type CallDeps, type Caller } from './call.js';
import type { LogLevels } from './logging.js';
import type { ToolEntry } from './tools.js';

export interface GuardDeps extends CallDeps {
  readonly confirm: ReadonlySet<ConfirmClass>;
  readonly audit: ToolAudit;
  readonly levels: LogLevels;
  /** Told of each write a session's tool made (its budgets and scheduled writes changed). */
  readonly wrote?: (ref: string) => void;
}

/** The key an elicited confirmation travels under in a retried call's input responses. */
const CONFIRM_KEY = 'socialgate_confirm';
const CONFIRM_SETTING = 'SOCIALGATE_MCP_CONFIRM';

/** A write whose class (or, for `delete`, whose DELETE method) the setting names. */
export function needsConfirmation(route: RouteSpec, confirm: ReadonlySet<ConfirmClass>): boolean {
  if (route.action === 'read') return false;
  return confirm.has(route.action) || (route.method === 'DELETE' && confirm.has('delete'));
}

type Verdict =
  | { readonly go: true; readonly asked: boolean }
  | { readonly go: false; readonly answer: CallToolResult | InputRequiredResult; readonly error?: unknown };

/**
 * The human's answer, when the write needs one. On protocol 2026-07-28 the question rides the
 * call's own answer (input required) and the answer comes back with the retried call; on a 2025
 * session the SDK's shim asks it as a server-to-client elicitation and calls again with the answer.
 * A client that declared no elicitation (or a 2025 request outside a session) is refused.
 */
function confirmation(server: Server, entry: ToolEntry, args: Readonly<Record<string, unknown>>, caller: Caller, ctx: ServerContext, deps: GuardDeps): Verdict {
  if (!needsConfirmation(entry.route, deps.confirm)) return { go: true, asked: false };
  const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
  if (answer.kind === 'elicit') {
    if (answer.action === 'accept' && answer.content?.confirm === true) return { go: true, asked: true };
    const how = answer.action === 'accept' ? 'not given' : `${answer.action}d`;
    const error = serviceError('ConfirmationDeclined', `The confirmation of ${entry.name} (${entry.route.action}) was ${how}; nothing was sent`);
    return { go: false, answer: toolError(error, deps.errors, caller.requestId), error };
  }
  if (server.getClientCapabilities()?.elicitation) {
    const ask = inputRequired.elicit({ message: question(entry, args), requestedSchema: CONFIRM_SCHEMA });
    return { go: false, answer: inputRequired({ inputRequests: { [CONFIRM_KEY]: ask } }) };
  }
  const named = [
    ...(deps.confirm.has(entry.route.action as ConfirmClass) ? [entry.route.action] : []),
    ...(entry.route.method === 'DELETE' && deps.confirm.has('delete') ? ['delete'] : []),
  ];
  const detail =
    `${entry.name} is a ${entry.route.action} write that ${CONFIRM_SETTING} asks a human to confirm, and this ` + `client cannot be asked (no elicitation)`;
  const error = serviceError('ConfirmationRequired', detail, {
    hint:
      `Use an MCP client that declares elicitation (a 2025 client keeping its session, or protocol ` +
      `2026-07-28), or leave ${named.map((one) => `"${one}"`).join(' and ')} out of ${CONFIRM_SETTING}.`,
  });
  return { go: false, answer: toolError(error, deps.errors, caller.requestId), error };
}

const CONFIRM_SCHEMA = {
  type: 'object' as const,
  properties: { confirm: { type: 'boolean' as const, title: 'Go ahead', description: 'Yes sends it to the platform for the account.', default: false } },
  required: ['confirm'],
};

function question(entry: ToolEntry, args: Readonly<Record<string, unknown>>): string {
  const what = `${entry.route.summary.toLowerCase()} (${entry.name}, a ${entry.route.action} write)`;
  return `An agent asks to ${what} with ${JSON.stringify(withoutSecrets(args))}. Allow it?`;
}

/** One route tool's call, guarded, logged to the client and audited. */
export async function guardedCall(
  server: Server,
  entry: ToolEntry,
  args: Readonly<Record<string, unknown>>,
  caller: Caller,
  ctx: ServerContext,
  deps: GuardDeps,
  tool = entry.name,
): Promise<CallToolResult | InputRequiredResult> {
  const started = performance.now();
  const verdict = confirmation(server, entry, args, caller, ctx, deps);
  if (!verdict.go && !verdict.error) return verdict.answer; // a question to the human, not an outcome
  await progress(ctx, 0, `${tool} started`);
  const result = verdict.go ? await callTool(entry, args, caller, deps) : (verdict.answer as CallToolResult);
  await progress(ctx, 1, `${tool} done`);
  const { outcome, status } = outcomeOf(result);
  deps.audit.write({
    at: new Date().toISOString(),
    key: caller.keyName,
    session: caller.sessionId ? sessionRef(caller.sessionId) : null,
    tool,
    route: entry.route.key,
    action: entry.route.action,
    arguments: withoutSecrets(args),
    outcome,
    status,
    confirmation: verdict.go && verdict.asked ? 'elicited' : 'not_needed',
    request_id: caller.requestId,
    ms: Math.round(performance.now() - started),
  });
  if (entry.route.action !== 'read' && status < 400 && caller.sessionId) deps.wrote?.(sessionRef(caller.sessionId));
  const level = status >= 500 ? 'error' : status >= 400 ? 'warning' : 'info';
  await notify(ctx, deps.levels, caller, level, { tool, route: entry.route.key, action: entry.route.action, outcome, status });
  return result;
}

/** A progress notification when the caller asked for them (a progress token), else nothing. */
async function progress(ctx: ServerContext, done: number, message: string): Promise<void> {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return;
  await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: done, total: 1, message } }).catch(() => undefined);
}

/** A log notification at the level the client chose (logging/setLevel), through the request's own stream. */
export async function notify(ctx: ServerContext, levels: LogLevels, caller: Caller, level: LoggingLevel, data: Record<string, unknown>): Promise<void> {
  if (!levels.allows(caller, level)) return;
  await ctx.mcpReq.notify({ method: 'notifications/message', params: { level, logger: 'socialgate', data } }).catch(() => undefined);
}
