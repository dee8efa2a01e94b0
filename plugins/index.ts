// Every hand-written plugin, by the name the manifest uses. The engine refuses to boot when a
// route names a plugin missing here, or a plugin here is named by no route.
import type { Plugin } from '../engine/types.js';
import { authPlugins } from './auth/index.js';
import { consolePlugins } from './console/index.js';
import { systemPlugins } from './system/index.js';
import { uploadPlugins } from './upload/index.js';
import { jobPlugins } from './jobs/index.js';
import { eventPlugins } from './events/index.js';
import { sandboxPlugins } from './events/sandbox.js';
import { keyPlugins } from './keys/index.js';
import { policyPlugins } from './policy/index.js';
import { writePlugins } from './writes/schedule.js';

export const plugins: Readonly<Record<string, Plugin>> = Object.freeze({ ...systemPlugins, ...authPlugins, ...uploadPlugins, ...jobPlugins, ...consolePlugins, ...eventPlugins, ...sandboxPlugins, ...keyPlugins, ...policyPlugins, ...writePlugins });
