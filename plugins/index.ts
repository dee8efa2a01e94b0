// Every hand-written plugin, by the name the manifest uses: the plugins of the feature modules the
// composition root lists (bin/compose.ts FEATURES). Kept for callers that want the plugins alone.
import type { Plugin } from '../engine/types.js';
import { FEATURES } from '../bin/compose.js';

export const plugins: Readonly<Record<string, Plugin>> = Object.freeze(
  Object.assign({}, ...FEATURES.map((module) => module.plugins ?? {})) as Record<string, Plugin>,
);
