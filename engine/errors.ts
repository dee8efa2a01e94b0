// The one place that maps failures to HTTP: upstream exceptions through the registry (by name,
// then through the base chain), the engine's own HttpErrors, and anything else as a 500.
import { HttpError } from './http-error.js';
import { serviceError } from './service-errors.js';
import type { ErrorRow, ErrorTable } from './types.js';
import { UpstreamError } from './types.js';

export interface ErrorBody {
  detail: string;
  exc_type: string;
  hint?: string;
  request_id: string;
  errors?: readonly { param: string; problem: string }[];
  last_json?: unknown;
  caa_actions?: readonly string[];
  login_reason?: string;
}

export interface MappedError {
  readonly status: number;
  readonly body: Omit<ErrorBody, 'request_id'>;
  readonly retryAfter?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** Walks an exception's bases breadth-first, nearest first, so a subclass finds its family's row. */
export function lineage(name: string, table: ErrorTable, extraBases: readonly string[] = []): string[] {
  const order: string[] = [];
  const queue = [name, ...extraBases];
  while (queue.length) {
    const next = queue.shift()!;
    if (order.includes(next)) continue;
    order.push(next);
    queue.push(...(table.hierarchy[next] ?? []));
  }
  return order;
}

export function rowFor(error: UpstreamError, table: ErrorTable): ErrorRow | undefined {
  const message = error.message.toLowerCase();
  const byMessage = table.messages.find((m) => message.includes(m.contains.toLowerCase()) && (!m.excType || m.excType === error.excType));
  if (byMessage) return byMessage.row;
  for (const name of lineage(error.excType, table, error.bases)) {
    const row = table.rows[name];
    if (row) return row;
  }
  return undefined;
}

export function mapError(error: unknown, table: ErrorTable): MappedError {
  if (error instanceof UpstreamError) return mapUpstream(error, table);
  return mapOwn(error instanceof HttpError ? error : serviceError('InternalError', 'Internal server error'));
}

function mapOwn(error: HttpError): MappedError {
  return {
    status: error.status,
    retryAfter: error.retryAfter,
    headers: error.headers,
    body: { detail: error.message, exc_type: error.excType, hint: error.hint, errors: error.errors, ...(error.extra ?? {}) },
  };
}

function mapUpstream(error: UpstreamError, table: ErrorTable): MappedError {
  const row = rowFor(error, table);
  const detail = row?.detail ?? (error.message || error.excType);
  const body: MappedError['body'] = { detail, exc_type: error.excType, hint: row?.hint };
  if (error.lastJson !== undefined) body.last_json = error.lastJson;
  if (error.login) Object.assign(body, error.login);
  if (!row) return { status: 502, body: { ...body, hint: `The upstream raised ${error.excType}, which this service does not map.` } };
  const retryAfter = row.status === 429 || row.status === 503 ? (error.retryAfter ?? row.retryAfter) : undefined;
  return { status: row.status, body, retryAfter };
}
