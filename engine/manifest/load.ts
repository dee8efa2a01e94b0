// Boot: read → normalise → check → freeze. Runs once; nothing re-reads the manifest afterwards.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scalarCoercers } from '../coerce.js';
import { resolvers } from '../resolvers.js';
import { shapes } from '../shapes.js';
import type { Manifest, Plugin } from '../types.js';
import { checkManifest, type Registries } from './check.js';
import { normalise } from './normalise.js';
import { readManifestFiles } from './read.js';

export const MANIFEST_FORMAT = 1;

export interface LoadOptions {
  readonly plugins: Readonly<Record<string, Plugin>>;
  readonly registries?: Partial<Omit<Registries, 'plugins'>>;
}

export function loadManifest(dir: string, options: LoadOptions): Manifest {
  const files = readManifestFiles(dir);
  const table = normalise(files);
  const registries: Registries = {
    coercers: options.registries?.coercers ?? scalarCoercers,
    shapes: options.registries?.shapes ?? shapes,
    resolvers: options.registries?.resolvers ?? resolvers,
    plugins: options.plugins,
  };
  return checkManifest(table, registries, MANIFEST_FORMAT);
}

/** The folder holding package.json, found from this module whether it runs from source or dist/. */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('socialgate: cannot find the project root (package.json)');
    dir = parent;
  }
  return dir;
}

export const defaultManifestDir = (): string => join(projectRoot(), 'manifest');
