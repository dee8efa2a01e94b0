// POST /auth/login: a fresh upstream client logs in with the caller's credentials; the service
// stores the resulting settings export under a new session id of its own and returns that id.
// The password is passed to the upstream once and never stored or logged.
import type { Plugin, PluginInput } from '../../engine/types.js';

export const login: Plugin = {
  uses: ['login', 'set_proxy', 'set_locale', 'set_timezone_offset'],
  async handle({ input, services }: PluginInput) {
    const options = { settings: {}, proxy: str(input.proxy), locale: str(input.locale), timezone: num(input.timezone) };
    const client = await services.upstream.open(options);
    try {
      await client.call('login', { username: input.username, password: input.password, verification_code: input.verification_code ?? '' });
      const settings = await client.exportSettings();
      const account = accountOf(settings, String(input.username));
      const record = await services.sessions.create(client, { account, ...options });
      return record.id;
    } catch (error) {
      await client.close();
      throw error;
    }
  },
};

export function accountOf(settings: Record<string, unknown>, username: string): { pk: string; username: string } {
  const auth = (settings.authorization_data ?? {}) as Record<string, unknown>;
  return { pk: String(auth.ds_user_id ?? ''), username };
}

const str = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
