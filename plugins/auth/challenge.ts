// POST /auth/challenge/resolve: hands the caller's security code to the upstream's challenge
// handler for this one call (CallOptions.challengeCode; the adapter restores its default handler
// afterwards, and nothing ever waits for terminal input). With a session, the session's own client
// resolves it and the session is active again; without one, the client of the login that met the
// challenge does (kept by PendingLogins), so the retried login continues on the same device.
import type { CallOptions, JsonValue, Plugin, PluginInput, SessionClient, SessionRecord, Services } from '../../engine/types.js';
import { UpstreamError } from '../../engine/types.js';
import { closeQuietly } from './options.js';
import type { PendingLogins } from './pending.js';

export const challenge: Plugin<PendingLogins> = {
  uses: ['challenge_resolve', 'get_settings'],
  keywords: { challenge_resolve: ['last_json'] },
  async handle({ input, session, client, services, parts: pending }: PluginInput<PendingLogins>) {
    const lastJson = input.last_json as JsonValue;
    const opts: CallOptions | undefined = typeof input.security_code === 'string' && input.security_code ? { challengeCode: input.security_code } : undefined;
    if (session && client) return resolveForSession(session, client, services, lastJson, opts);
    return resolveForLogin(services, pending, lastJson, opts);
  },
};

async function resolveForSession(session: SessionRecord, client: SessionClient, services: Services, lastJson: JsonValue, opts?: CallOptions): Promise<boolean> {
  const resolved = (await client.call('challenge_resolve', { last_json: lastJson }, opts)) !== false;
  if (resolved) {
    const settings = (await client.call('get_settings', {})) as Record<string, unknown>;
    await services.sessions.update(session, { settings, state: 'active' }, 'challenge_resolved');
  }
  return resolved;
}

async function resolveForLogin(services: Services, pending: PendingLogins, lastJson: JsonValue, opts?: CallOptions): Promise<boolean> {
  const entry = pending.takeByChallenge(lastJson);
  const client = entry?.client ?? (await services.upstream.open({ settings: {} }));
  let next: JsonValue | undefined;
  try {
    return (await client.call('challenge_resolve', { last_json: lastJson }, opts)) !== false;
  } catch (error) {
    if (error instanceof UpstreamError) next = error.lastJson; // a new payload may name the next step
    throw error;
  } finally {
    if (entry)
      pending.put(entry, next); // kept either way: the retried login continues on it
    else await closeQuietly(client);
  }
}
