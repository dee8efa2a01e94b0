// What the scheduled-writes routes and the 202 answers show of a kept write.
import type { ScheduledWrite } from './schedule-store.js';

/** What the routes show: times as RFC 3339, files by field and name, nothing sealed. */
export function writeView(write: ScheduledWrite): Record<string, unknown> {
  const { session: _sealed, owner: _owner, bag, files, run_at, created_at, updated_at, finished_at, ...shown } = write;
  const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
  return {
    ...shown,
    params: bag,
    files: files.map((f) => ({ field: f.field, name: f.originalName, size: f.size })),
    run_at: iso(run_at),
    created_at: iso(created_at),
    updated_at: iso(updated_at),
    finished_at: iso(finished_at),
  };
}
