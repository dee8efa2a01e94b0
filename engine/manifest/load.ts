// Boot: read → normalise → check → freeze. Runs once; nothing re-reads the manifest afterwards.
import { join } from 'node:path';
import { scalarCoercers } from '../coerce.js';
import { resolvers } from '../resolvers.js';
import { shapes } from '../shapes.js';
import type { Manifest, Plugin } from '../types.js';
import { checkManifest, type Registries } from './check.js';
import { normalise } from './normalise.js';
import { readManifestFiles } from './read.js';
import { withSettingBounds, type SettingBounds } from './bounds.js';
import { projectRoot } from '../root.js';
import { SERVICE_ERRORS, type ServiceErrorTable } from '../service-errors.js';

export { projectRoot };

export const MANIFEST_FORMAT = 1;

export interface LoadOptions {
  readonly plugins: Readonly<Record<string, Plugin>>;
  readonly registries?: Partial<Omit<Registries, 'plugins'>>;
  /** Bounds from settings, written into the route records (engine/manifest/bounds.ts). */
  readonly bounds?: SettingBounds;
  /** The feature modules' error rows, merged with the engine's into manifest.serviceErrors (the documents read them). */
  readonly errors?: ServiceErrorTable;
}

export function loadManifest(dir: string, options: LoadOptions): Manifest {
  const files = readManifestFiles(dir);
  const registries: Registries = {
    coercers: options.registries?.coercers ?? scalarCoercers,
    shapes: options.registries?.shapes ?? shapes,
    resolvers: options.registries?.resolvers ?? resolvers,
    plugins: options.plugins,
  };
  const manifest = withSettingBounds(checkManifest(normalise(files, registries), registries, MANIFEST_FORMAT), options.bounds ?? {});
  return Object.freeze({ ...manifest, serviceErrors: Object.freeze({ ...SERVICE_ERRORS, ...options.errors }) });
}

export const defaultManifestDir = (): string => join(projectRoot(), 'manifest');
