// POST /auth/login and POST /auth/login/by/sessionid: an upstream client logs in with what the
// caller sent; the service stores the resulting settings export under a new session id of its own
// and answers that id. The password goes to the upstream once and is never stored or logged.
// A login that stops at a challenge or a two-factor prompt keeps its client (PendingLogins), so the
// retry continues on the device the platform has already seen.
import type { Plugin, PluginInput, Services, UpstreamClient } from '../../engine/types.js';
import { UpstreamError } from '../../engine/types.js';
import { accountOf, closeQuietly, requestedOptions } from './options.js';
import type { PendingLogins } from './pending.js';

export const login: Plugin<PendingLogins> = {
  uses: ['login'],
  keywords: { login: ['username', 'password', 'verification_code'] },
  async handle({ input, services, signal, parts: pending }: PluginInput<PendingLogins>) {
    const username = String(input.username).trim();
    const options = requestedOptions(input);
    const resumed = pending.takeByUsername(username, options);
    const client = resumed?.client ?? (await services.upstream.open({ settings: {}, ...options }));
    try {
      await client.call('login', { username, password: input.password, verification_code: input.verification_code ?? '' });
    } catch (error) {
      if (unfinished(error)) pending.put({ client, username, options, challengePath: resumed?.challengePath }, error.lastJson);
      else await closeQuietly(client);
      throw error;
    }
    return newSession(services, client, username, options, signal);
  },
};

export const loginBySessionId: Plugin = {
  uses: ['login_by_sessionid'],
  keywords: { login_by_sessionid: ['sessionid'] },
  async handle({ input, services, signal }: PluginInput) {
    const options = requestedOptions(input);
    const client = await services.upstream.open({ settings: {}, ...options });
    try {
      await client.call('login_by_sessionid', { sessionid: input.sessionid });
    } catch (error) {
      await closeQuietly(client);
      throw error;
    }
    return newSession(services, client, '', options, signal);
  },
};

async function newSession(
  services: Services,
  client: UpstreamClient,
  username: string,
  options: ReturnType<typeof requestedOptions>,
  signal: AbortSignal,
): Promise<string> {
  try {
    const account = await accountOf(client, username);
    // the record keeps the session's options alone (a client-only option such as upgradeAppProfile is no record field)
    const record = await services.sessions.create(client, { account, proxy: options.proxy, locale: options.locale, timezone: options.timezone });
    revokeIfUndelivered(services, record.id, signal);
    return record.id;
  } catch (error) {
    await closeQuietly(client);
    throw error;
  }
}

/**
 * A session whose id never reaches its caller is a logged-in account nobody can use or revoke by
 * id: when the client is gone before the answer is written (the signal aborts on a response closed
 * unfinished), the record goes again.
 */
function revokeIfUndelivered(services: Services, id: string, signal: AbortSignal): void {
  const revoke = () => void services.sessions.revoke(id).catch(() => undefined);
  if (signal.aborted) revoke();
  else signal.addEventListener('abort', revoke, { once: true });
}

/** The login can go on: the platform wants a code (two-factor) or a challenge solved first. */
function unfinished(error: unknown): error is UpstreamError {
  return error instanceof UpstreamError && (error.excType === 'TwoFactorRequired' || error.excType === 'ChallengeRequired');
}
