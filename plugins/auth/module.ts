// Logging in, challenges, relogin, settings export and TOTP codes (manifest/auth.yaml).
import type { FeatureModule } from '../../engine/types.js';
import { authPlugins } from './index.js';
import { PendingLogins } from './pending.js';

/** Each app keeps its own logins waiting at a challenge (tests run several apps in one process). */
export const authModule: FeatureModule<PendingLogins> = {
  name: 'auth',
  plugins: authPlugins,
  start: () => new PendingLogins(),
  stop: async (pending) => pending.clear(),
};
