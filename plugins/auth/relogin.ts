// PATCH /auth/relogin: the session's client logs in again; the refreshed settings export is saved
// so the next restored client starts from the new cookies. When the platform refuses the relogin
// for good (bad or missing credentials, login required), the session is marked logged out and its
// settings dropped; throttling and challenges leave it as it is (the governor and the challenge
// state deal with those).
import type { Plugin, PluginInput, Services, SessionClient, SessionRecord } from '../../engine/types.js';
import { serviceError } from '../../engine/service-errors.js';
import { UpstreamError } from '../../engine/types.js';

const FINAL = new Set(['BadPassword', 'BadCredentials', 'LoginRequired', 'ClientLoginRequired', 'ReloginAttemptExceeded', 'AccountSuspended']);

export const relogin: Plugin = {
  uses: ['relogin', 'get_settings'],
  async handle({ session, client, services }: PluginInput) {
    if (!session || !client) throw serviceError('SessionRequired', 'Session ID required');
    await reloginSession(session, client, services);
    return true;
  },
};

/** The relogin itself, for this route and the console's: the saved record afterwards. */
export async function reloginSession(session: SessionRecord, client: SessionClient, services: Services): Promise<SessionRecord> {
  try {
    await client.call('relogin', {});
  } catch (error) {
    if (error instanceof UpstreamError && FINAL.has(error.excType))
      await services.sessions.update(session, { state: 'logged_out', settings: {} }, error.excType);
    throw error;
  }
  const settings = (await client.call('get_settings', {})) as Record<string, unknown>;
  return services.sessions.update(session, { settings, state: 'active', throttledUntil: undefined }, 'relogin');
}
