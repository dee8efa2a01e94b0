// Named API keys: list, create, revoke (manifest/keys.yaml).
import type { FeatureModule } from '../../engine/types.js';
import { KEY_ERRORS } from './errors.js';
import { keyPlugins } from './index.js';

export const keysModule: FeatureModule = { name: 'keys', plugins: keyPlugins, errors: KEY_ERRORS };
