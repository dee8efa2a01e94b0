// Session: the X-Session-ID header, else the legacy sessionid in query, form field or cookie (in
// that order). Only the service's own ids are accepted; a missing or unknown one is a 401.
import type { ParameterizedContext } from 'koa';
import type { HttpError } from '../http-error.js';
import { serviceError } from '../service-errors.js';
import type { SessionRecord, SessionService } from '../types.js';

export function sessionIdFrom(ctx: ParameterizedContext): string | undefined {
  const header = ctx.get('x-session-id');
  if (header) return header.trim();
  const query = ctx.query.sessionid;
  if (typeof query === 'string' && query) return query;
  const form = (ctx.request as { body?: Record<string, unknown> }).body?.sessionid;
  if (typeof form === 'string' && form) return form;
  return ctx.cookies.get('sessionid') || undefined;
}

export const sessionRequired = (): HttpError => serviceError('SessionRequired', 'Session ID required');

const sessionUnknown = (): HttpError => serviceError('SessionNotFound', 'Session not found or revoked');

export async function findSession(id: string | undefined, sessions: SessionService): Promise<SessionRecord | undefined> {
  if (!id) return undefined;
  const record = await sessions.find(id);
  if (!record) throw sessionUnknown();
  return record;
}
