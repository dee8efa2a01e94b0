// The console's jobs and pools: every job of every owner (the jobs routes list one owner's), a job
// started for a session named by ref, and a session added to a pool by ref. Each goes through the
// jobs module's own service, so its checks, pacing and events are the same as the API's.
import { ownerOf } from '../../engine/owner.js';
import { serviceError } from '../jobs/errors.js';
import type { PluginInput, Services } from '../../engine/types.js';
import { jobsOf } from '../jobs/index.js';
import { jobView } from '../jobs/record.js';
import { consoleChanged } from './changes.js';
import { recordOf } from './sessions.js';

export const JOB_LIST_LIMIT = 200;

function parts(services: Services) {
  const found = jobsOf(services);
  if (!found) throw serviceError('JobsUnavailable', 'Background work is not available on this instance');
  return found;
}

export async function allJobs(services: Services): Promise<{ jobs: Record<string, unknown>[] }> {
  const now = Date.now();
  return { jobs: (await parts(services).jobs.all(JOB_LIST_LIMIT)).map((job) => jobView(job, now)) };
}

export async function startJob({ input, services, caller }: PluginInput): Promise<Record<string, unknown>> {
  const { jobs } = parts(services);
  const session = typeof input.ref === 'string' ? await recordOf(input.ref, services) : undefined;
  const pool = typeof input.pool === 'string' ? input.pool : undefined;
  const route = String(input.route).includes(' ') ? String(input.route) : `GET ${input.route}`;
  // Made for the session's account by the operator's key: its account sees it, as the operator does.
  const owner = ownerOf({ ...caller, account: session?.account.pk });
  const job = await jobs.create({ route, params: (input.params ?? {}) as Record<string, unknown>, limit: Number(input.limit ?? 0), session, pool, owner });
  consoleChanged(services, 'jobs');
  return jobView(job);
}

export async function addToPool({ input, services, caller }: PluginInput) {
  const record = await recordOf(String(input.ref), services);
  const pool = await parts(services).pools.create(String(input.name), [record.id], caller);
  consoleChanged(services, 'sessions');
  return pool;
}

export async function removeFromPool({ input, services }: PluginInput) {
  const record = await recordOf(String(input.ref), services);
  const pool = await parts(services).pools.removeMember(String(input.name), record.account.pk);
  consoleChanged(services, 'sessions');
  return pool;
}
