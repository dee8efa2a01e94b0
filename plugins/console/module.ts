// The operator console: its routes (manifest/console.yaml, the page and its key in system.yaml),
// its errors, its built assets and the cookie that proves the key for the page's own requests. It
// lists the events module's webhooks and the jobs module's jobs and pools, and shows every module's
// session views (budgets, frozen classes, the watcher) in its session rows.
import type { FeatureModule } from '../../engine/types.js';
import { eventsModule } from '../events/module.js';
import { jobsModule } from '../jobs/module.js';
import { consoleAssets, consoleCookie } from './assets.js';
import { CONSOLE_ERRORS } from './errors.js';
import { consolePlugins } from './index.js';
import { type ConsoleParts, consoleParts } from './parts.js';

export const consoleModule: FeatureModule<ConsoleParts> = {
  name: 'console',
  needs: [eventsModule, jobsModule],
  readsSessionViews: true,
  start: (context) => consoleParts(context, context.partsOf(eventsModule), context.partsOf(jobsModule)),
  plugins: consolePlugins,
  errors: CONSOLE_ERRORS,
  assets: () => consoleAssets(),
  keyProofs: [consoleCookie],
};
