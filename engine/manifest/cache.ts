// The manifest's YAML, parsed and checked against the format schema at build time (`npm run build`
// writes dist/manifest.cache.json), so a boot reads JSON instead of parsing some 400 KB of YAML and
// compiling the format schema. The cache is keyed by a hash of the format schema and of every
// manifest file's name and bytes: a boot whose files differ in any byte (an edited manifest, a
// manifest folder of its own) parses and checks them as before, so the cache can never be stale.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../root.js';
import type { RawFile } from './raw.js';

export interface ManifestSource {
  readonly name: string;
  readonly text: string;
}

interface CacheFile {
  readonly key: string;
  readonly files: readonly RawFile['doc'][];
}

export const cachePath = (): string => join(projectRoot(), 'dist', 'manifest.cache.json');
const formatSchemaText = (): string => readFileSync(join(projectRoot(), 'manifest', 'format.schema.json'), 'utf8');

export function sourcesKey(sources: readonly ManifestSource[]): string {
  const hash = createHash('sha256').update(formatSchemaText());
  for (const source of sources) hash.update('\u0000').update(source.name).update('\u0000').update(source.text);
  return hash.digest('hex');
}

/** The checked documents for exactly these sources, or undefined when the cache is absent or was made from other bytes. */
export function cachedDocs(sources: readonly ManifestSource[]): readonly RawFile['doc'][] | undefined {
  const path = cachePath();
  if (!existsSync(path)) return undefined;
  try {
    const cache = JSON.parse(readFileSync(path, 'utf8')) as CacheFile;
    return cache.key === sourcesKey(sources) && cache.files.length === sources.length ? cache.files : undefined;
  } catch {
    return undefined; // a torn or foreign file: parse as if there were none
  }
}

export function writeCache(sources: readonly ManifestSource[], docs: readonly RawFile['doc'][]): void {
  const cache: CacheFile = { key: sourcesKey(sources), files: docs };
  writeFileSync(cachePath(), JSON.stringify(cache));
}
