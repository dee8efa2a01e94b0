// The app-profile upgrade as an operator action on a session (POST /console/sessions/upgrade): the
// client is opened again from the session's saved settings with the library's current app profile
// (the device's identifiers kept), and its settings export replaces the saved one under the same
// session ID, so the programs holding that ID are not cut off as a rotated ID would cut them.
import type { Services, SessionRecord } from '../../engine/types.js';

export async function upgradeAppProfile(record: SessionRecord, services: Services): Promise<SessionRecord> {
  const client = await services.upstream.open({
    settings: record.settings,
    upgradeAppProfile: true,
    ...(record.proxy ? { proxy: record.proxy } : {}),
    ...(record.locale ? { locale: record.locale } : {}),
    ...(record.timezone !== undefined ? { timezone: record.timezone } : {}),
  });
  try {
    const settings = (await client.call('get_settings', {})) as Record<string, unknown>;
    // The saved settings changed: the session service builds the live client again from them.
    return await services.sessions.update(record, { settings }, 'app_profile_upgraded');
  } finally {
    await client.close().catch(() => undefined);
  }
}
