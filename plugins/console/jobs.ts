// The console's jobs and pools: every job of every owner (the jobs routes list one owner's), a job
// started for a session named by ref, and a session added to a pool by ref. Each goes through the
// jobs module's own service, so its checks, pacing and events are the same as the API's.
import { ownerOf } from '../../engine/owner.js';
import { serviceError } from '../jobs/errors.js';
import type { PluginInput } from '../../engine/types.js';
import type { JobsParts } from '../jobs/index.js';
import { jobView } from '../jobs/record.js';
import type { ConsoleParts } from './parts.js';
import { recordOf } from './sessions.js';

export const JOB_LIST_LIMIT = 200;

function running(found: JobsParts): NonNullable<JobsParts> {
  if (!found) throw serviceError('JobsUnavailable', 'Background work is not available on this instance');
  return found;
}

export async function allJobs(found: JobsParts): Promise<{ jobs: Record<string, unknown>[] }> {
  const now = Date.now();
  return { jobs: (await running(found).jobs.all(JOB_LIST_LIMIT)).map((job) => jobView(job, now)) };
}

export async function startJob({ input, services, caller, parts }: PluginInput<ConsoleParts>): Promise<Record<string, unknown>> {
  const { jobs } = running(parts.jobs);
  const session = typeof input.ref === 'string' ? await recordOf(input.ref, services) : undefined;
  const pool = typeof input.pool === 'string' ? input.pool : undefined;
  const route = String(input.route).includes(' ') ? String(input.route) : `GET ${input.route}`;
  // Made for the session's account by the operator's key: its account sees it, as the operator does.
  const owner = ownerOf({ ...caller, account: session?.account.pk });
  const job = await jobs.create({ route, params: (input.params ?? {}) as Record<string, unknown>, limit: Number(input.limit ?? 0), session, pool, owner });
  parts.changes.changed('jobs');
  return jobView(job);
}

export async function addToPool({ input, services, caller, parts }: PluginInput<ConsoleParts>) {
  const record = await recordOf(String(input.ref), services);
  const pool = await running(parts.jobs).pools.create(String(input.name), [record.id], caller);
  parts.changes.changed('sessions');
  return pool;
}

export async function removeFromPool({ input, services, parts }: PluginInput<ConsoleParts>) {
  const record = await recordOf(String(input.ref), services);
  const pool = await running(parts.jobs).pools.removeMember(String(input.name), record.account.pk);
  parts.changes.changed('sessions');
  return pool;
}
