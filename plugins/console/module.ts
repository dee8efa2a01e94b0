// The operator console: its routes (manifest/console.yaml, the page and its key in system.yaml),
// its errors and its built assets.
import type { FeatureModule } from '../../engine/types.js';
import { consoleAssets } from '../../engine/console.js';
import { CONSOLE_ERRORS } from './errors.js';
import { consolePlugins } from './index.js';

export const consoleModule: FeatureModule = { name: 'console', plugins: consolePlugins, errors: CONSOLE_ERRORS, assets: () => consoleAssets() };
