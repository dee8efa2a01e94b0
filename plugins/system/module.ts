// The system routes (health, readiness, metrics, build, dependencies, the documents).
import type { FeatureModule } from '../../engine/types.js';
import { systemPlugins } from './index.js';

export const systemModule: FeatureModule = {
  name: 'system',
  plugins: systemPlugins,
  settings: [{ name: 'GIT_SHA', default: "the checkout's commit", describe: 'the commit `/build` names when the build has no git checkout' }],
};
