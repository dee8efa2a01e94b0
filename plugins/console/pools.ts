// Pool names by member account, for the console's session list (./sessions.ts); beside the pool
// actions' module (./jobs.ts) rather than in it, since that module reads session records.
import type { Services } from '../../engine/types.js';
import { jobsOf } from '../jobs/index.js';

/** Pool names by member account pk; empty without the jobs module. */
export async function poolsByAccount(services: Services): Promise<Map<string, string[]>> {
  const byPk = new Map<string, string[]>();
  const found = jobsOf(services);
  if (!found) return byPk;
  for (const pool of await found.pools.list()) for (const member of pool.members) byPk.set(member.pk, [...(byPk.get(member.pk) ?? []), pool.name]);
  return byPk;
}
