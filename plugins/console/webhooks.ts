// The console's view of webhooks: every endpoint (never its secret) with its newest deliveries,
// newest first. Read from the shared work store, so every instance shows the same.
import type { Webhooks } from '../../adapters/events/webhooks.js';

const RECENT = 10;

export async function consoleWebhooks(webhooks: Webhooks): Promise<{ endpoints: Record<string, unknown>[] }> {
  const endpoints = await webhooks.list();
  return {
    endpoints: await Promise.all(
      endpoints.map(async (endpoint) => {
        const all = await webhooks.attempts(String(endpoint.id), 0, 100_000);
        const recent = all
          .slice(-RECENT)
          .reverse()
          .map(({ seq, attempt }) => ({ seq, ...attempt, at: new Date(attempt.at).toISOString() }));
        return { ...endpoint, deliveries: recent, attempts: all.length };
      }),
    ),
  };
}
