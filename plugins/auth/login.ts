// POST /auth/login and POST /auth/login/by/sessionid: an upstream client logs in with what the
// caller sent; the service stores the resulting settings export under a new session id of its own
// and answers that id. The password goes to the upstream once and is never stored or logged.
// A login that stops at a challenge or a two-factor prompt keeps its client (PendingLogins), so the
// retry continues on the device the platform has already seen.
import type { Plugin, PluginInput, Services, UpstreamClient } from '../../engine/types.js';
import { UpstreamError } from '../../engine/types.js';
import { accountOf, closeQuietly, requestedOptions } from './options.js';
import { PendingLogins } from './pending.js';

export const login: Plugin = {
  uses: ['login'],
  keywords: { login: ['username', 'password', 'verification_code'] },
  async handle({ input, services }: PluginInput) {
    const username = String(input.username).trim();
    const options = requestedOptions(input);
    const pending = PendingLogins.of(services);
    const resumed = pending.takeByUsername(username, options);
    const client = resumed?.client ?? (await services.upstream.open({ settings: {}, ...options }));
    try {
      await client.call('login', { username, password: input.password, verification_code: input.verification_code ?? '' });
    } catch (error) {
      if (unfinished(error)) pending.put({ client, username, options, challengePath: resumed?.challengePath }, error.lastJson);
      else await closeQuietly(client);
      throw error;
    }
    return newSession(services, client, username, options);
  },
};

export const loginBySessionId: Plugin = {
  uses: ['login_by_sessionid'],
  keywords: { login_by_sessionid: ['sessionid'] },
  async handle({ input, services }: PluginInput) {
    const options = requestedOptions(input);
    const client = await services.upstream.open({ settings: {}, ...options });
    try {
      await client.call('login_by_sessionid', { sessionid: input.sessionid });
    } catch (error) {
      await closeQuietly(client);
      throw error;
    }
    return newSession(services, client, '', options);
  },
};

async function newSession(services: Services, client: UpstreamClient, username: string, options: ReturnType<typeof requestedOptions>): Promise<string> {
  try {
    const account = accountOf(await client.exportSettings(), username);
    const record = await services.sessions.create(client, { account, ...options });
    return record.id;
  } catch (error) {
    await closeQuietly(client);
    throw error;
  }
}

/** The login can go on: the platform wants a code (two-factor) or a challenge solved first. */
function unfinished(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && (error.excType === 'TwoFactorRequired' || error.excType === 'ChallengeRequired');
}
