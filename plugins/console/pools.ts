// Pool names by member account, for the console's session list (./sessions.ts); beside the pool
// actions' module (./jobs.ts) rather than in it, since that module reads session records.
import type { JobsParts } from '../jobs/index.js';

/** Pool names by member account pk; empty on an app without the background layer. */
export async function poolsByAccount(found: JobsParts): Promise<Map<string, string[]>> {
  const byPk = new Map<string, string[]>();
  if (!found) return byPk;
  for (const pool of await found.pools.list()) for (const member of pool.members) byPk.set(member.pk, [...(byPk.get(member.pk) ?? []), pool.name]);
  return byPk;
}
