// PATCH /auth/settings: imports a settings export and/or changes proxy, locale and timezone, and
// answers a new session id (the old one, if any, is revoked: ids rotate when what they grant
// changes). An imported export is checked with one upstream call before it is saved, so a dead or
// foreign export is refused now rather than failing on every later request. A throttled account
// stays throttled under its new id, and a class the platform blocked stays frozen. `upgrade_app_profile` rebuilds the client with the library's
// current app profile (aiograpi's override_app_version), the device's identifiers kept.
import type { HttpError } from '../../engine/http-error.js';
import { serviceError } from '../../engine/service-errors.js';
import type { Plugin, PluginInput } from '../../engine/types.js';
import { accountOf, closeQuietly, requestedOptions } from './options.js';

export const settings: Plugin = {
  uses: ['expose'],
  async handle({ input, session, services }: PluginInput) {
    const imported = input.settings as Record<string, unknown> | undefined;
    const base = imported ?? session?.settings;
    if (!base) throw settingsRequired();
    // The app-profile upgrade is an action on this opening, not a setting the session keeps.
    const { upgradeAppProfile, ...options } = requestedOptions(input, session);
    const client = await services.upstream.open({ settings: base, ...options, ...(upgradeAppProfile ? { upgradeAppProfile } : {}) });
    try {
      if (imported) await client.call('expose', {});
      const account = await accountOf(client);
      const same = session && session.account.pk === account.pk;
      const record = await services.sessions.create(client, {
        account: same ? session.account : account,
        ...options,
        ...(same ? services.sessions.carried(session) : {}),
      });
      if (session) await services.sessions.revoke(session.id);
      return record.id;
    } catch (error) {
      await closeQuietly(client);
      throw error;
    }
  },
};

function settingsRequired(): HttpError {
  return serviceError('ValidationError', 'Invalid parameters: settings (required without a session)', {
    errors: [{ param: 'settings', problem: 'required without a session' }],
    hint: 'Send the settings export as the settings form field, or send X-Session-ID to change proxy, locale or timezone only.',
  });
}
