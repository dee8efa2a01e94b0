// What the auth plugins share: the client options a request asks for (proxy, locale, timezone,
// over a session's own), the account a settings export belongs to, and closing a client that is
// no longer wanted without masking the error that made it unwanted.
import type { ClientOptions, InputBag, SessionRecord, UpstreamClient } from '../../engine/types.js';

/** Proxy, locale and timezone from the request, falling back to the session's; an empty proxy clears it. */
export function requestedOptions(input: InputBag, base?: SessionRecord): Omit<ClientOptions, 'settings'> {
  const proxy = typeof input.proxy === 'string' ? input.proxy || undefined : base?.proxy;
  const locale = str(input.locale) ?? base?.locale;
  const timezone = typeof input.timezone === 'number' ? input.timezone : base?.timezone;
  return { proxy, locale, timezone };
}

/** The account a settings export is logged in as (pk from its authorization data; no secrets). */
export function accountOf(settings: Readonly<Record<string, unknown>>, username = ''): { pk: string; username: string } {
  const auth = (settings.authorization_data ?? {}) as Record<string, unknown>;
  const cookies = (settings.cookies ?? {}) as Record<string, unknown>;
  return { pk: String(auth.ds_user_id ?? cookies.ds_user_id ?? ''), username };
}

export async function closeQuietly(client: UpstreamClient): Promise<void> {
  try {
    await client.close();
  } catch {
    // the client is being discarded; its own failure to close changes nothing for the caller
  }
}

export const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
