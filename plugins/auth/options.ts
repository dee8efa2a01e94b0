// What the auth plugins share: the client options a request asks for (proxy, locale, timezone,
// over a session's own), the account a logged-in client acts for, and closing a client that is
// no longer wanted without masking the error that made it unwanted.
import type { ClientOptions, InputBag, SessionRecord, UpstreamClient } from '../../engine/types.js';

/** Proxy, locale and timezone from the request, falling back to the session's; an empty proxy clears it. */
export function requestedOptions(input: InputBag, base?: SessionRecord): Omit<ClientOptions, 'settings'> {
  const proxy = typeof input.proxy === 'string' ? input.proxy || undefined : base?.proxy;
  const locale = str(input.locale) ?? base?.locale;
  const timezone = typeof input.timezone === 'number' ? input.timezone : base?.timezone;
  return { proxy, locale, timezone, ...(input.upgrade_app_profile === true ? { upgradeAppProfile: true } : {}) };
}

/**
 * The account a logged-in client acts for, as the client port tells it after an export (which
 * brings the client's settings up to date): the plugins never read the upstream's settings format.
 */
export async function accountOf(client: UpstreamClient, username = ''): Promise<{ pk: string; username: string }> {
  await client.exportSettings();
  return { pk: client.account() ?? '', username };
}

export async function closeQuietly(client: UpstreamClient): Promise<void> {
  try {
    await client.close();
  } catch {
    // the client is being discarded; its own failure to close changes nothing for the caller
  }
}

export const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
