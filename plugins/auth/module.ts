// Logging in, challenges, relogin, settings export and TOTP codes (manifest/auth.yaml).
import type { FeatureModule } from '../../engine/types.js';
import { authPlugins } from './index.js';

export const authModule: FeatureModule = { name: 'auth', plugins: authPlugins };
