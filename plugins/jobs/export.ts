// A job's results as a stream: NDJSON, CSV (a header row from the item schema, nested fields
// flattened with dotted names) or one JSON array. What is collected so far is read from the work
// store in batches (memory stays flat whatever the count); with `follow`, the stream waits for
// more until the job ends. Any instance sharing the store can serve it.
import { Readable } from 'node:stream';
import type { StreamResult, WorkStore } from '../../engine/types.js';
import type { JobKind } from './kinds.js';
import { listOf, type JobRecord } from './record.js';

export type ExportFormat = 'ndjson' | 'csv' | 'json';

const BATCH = 500;
const FOLLOW_POLL_MS = 250;
const TYPES: Readonly<Record<ExportFormat, string>> = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
};
const TERMINAL = new Set(['done', 'failed', 'cancelled']);

export interface ExportRequest {
  readonly store: WorkStore;
  readonly job: JobRecord;
  readonly kind: JobKind;
  readonly format: ExportFormat;
  readonly follow: boolean;
  /** The job as it stands now (a cancellation included), for following. */
  readonly current: () => Promise<JobRecord>;
  readonly signal: AbortSignal;
}

export function exportJob(request: ExportRequest): StreamResult {
  return {
    kind: 'stream',
    stream: Readable.from(lines(request), { objectMode: false }),
    filename: `${request.job.id}.${request.format === 'ndjson' ? 'ndjson' : request.format}`,
    contentType: TYPES[request.format],
  };
}

async function* lines(request: ExportRequest): AsyncGenerator<string> {
  const { format } = request;
  let columns: readonly string[] | undefined = request.kind.columns.length ? request.kind.columns : undefined;
  if (format === 'json') yield '[';
  if (format === 'csv' && columns) yield csvRow(columns) + '\r\n';
  let first = true;
  for await (const item of items(request)) {
    if (format === 'ndjson') yield JSON.stringify(item) + '\n';
    else if (format === 'json') yield (first ? '' : ',') + JSON.stringify(item);
    else {
      if (!columns) yield csvRow((columns = Object.keys(item as object))) + '\r\n'; // a schema without declared fields: the first item's
      yield csvRow(columns.map((column) => cell(item, column))) + '\r\n';
    }
    first = false;
  }
  if (format === 'json') yield ']\n';
}

async function* items(request: ExportRequest): AsyncGenerator<unknown> {
  const list = listOf(request.job.id);
  let after = 0;
  for (;;) {
    if (request.signal.aborted) return;
    // Whether the job had ended is read before the batch, so an item saved with its last page is not missed.
    const ended = !request.follow || TERMINAL.has((await request.current()).state);
    const batch = await request.store.read(list, { after, limit: BATCH });
    for (const entry of batch) yield entry.value;
    if (batch.length) after = batch[batch.length - 1].seq;
    if (batch.length === BATCH) continue;
    if (ended) return;
    await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
  }
}

/** A field by dotted path; objects and arrays as JSON, absent as empty. */
export function cell(item: unknown, column: string): string {
  let value: unknown = item;
  for (const key of column.split('.')) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled. */
function csvRow(fields: readonly string[]): string {
  return fields.map((field) => (/[",\r\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field)).join(',');
}
