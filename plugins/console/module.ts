// The operator console: its routes (manifest/console.yaml, the page and its key in system.yaml),
// its errors, its built assets and the cookie that proves the key for the page's own requests.
import type { FeatureModule } from '../../engine/types.js';
import { consoleAssets, consoleCookie } from './assets.js';
import { CONSOLE_ERRORS } from './errors.js';
import { consolePlugins } from './index.js';

export const consoleModule: FeatureModule = {
  name: 'console',
  plugins: consolePlugins,
  errors: CONSOLE_ERRORS,
  assets: () => consoleAssets(),
  keyProofs: [consoleCookie],
};
