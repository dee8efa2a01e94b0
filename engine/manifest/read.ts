// Step 1 of boot: read every manifest file, parse its YAML and check it against the format schema.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import { parseDocument } from 'yaml';
import { ManifestError } from './errors.js';
import type { RawFile } from './raw.js';
import { cachedDocs, writeCache, type ManifestSource } from './cache.js';
import { projectRoot } from '../root.js';

export function readManifestFiles(dir: string): RawFile[] {
  const sources = readSources(dir);
  const cached = cachedDocs(sources);
  if (cached) return sources.map((source, i) => ({ file: fileName(dir, source), doc: cached[i]! }));
  return parseAndCheck(dir, sources);
}

/** What `npm run build` runs: the product manifest parsed and checked once, for every boot after. */
export function cacheManifest(dir: string): number {
  const sources = readSources(dir);
  writeCache(
    sources,
    parseAndCheck(dir, sources).map((raw) => raw.doc),
  );
  return sources.length;
}

function readSources(dir: string): ManifestSource[] {
  const names = readdirSync(dir)
    .filter((name) => name.endsWith('.yaml') || name.endsWith('.yml'))
    .sort();
  if (names.length === 0) throw new ManifestError(dir, 'no manifest files (*.yaml) found');
  return names.map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));
}

function parseAndCheck(dir: string, sources: readonly ManifestSource[]): RawFile[] {
  const checkFormat = compileFormatSchema();
  return sources.map((source) => {
    const file = fileName(dir, source);
    const doc = parseYaml(source.text, file);
    if (!checkFormat(doc)) throw formatError(file, doc, checkFormat.errors ?? []);
    return { file, doc: doc as RawFile['doc'] };
  });
}

const fileName = (dir: string, source: ManifestSource): string => {
  const path = join(dir, source.name);
  return relative(process.cwd(), path) || path;
};

function parseYaml(text: string, file: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) throw new ManifestError(file, `invalid YAML: ${doc.errors[0].message}`);
  return doc.toJS({ maxAliasCount: 100 });
}

/** The format schema is the project's own, wherever the manifest being read lives. */
function compileFormatSchema() {
  const schema = JSON.parse(readFileSync(join(projectRoot(), 'manifest', 'format.schema.json'), 'utf8'));
  const ajv = new Ajv({ allErrors: true, strict: false });
  return ajv.compile(schema);
}

/** Picks the most specific schema error and names the route and key it is about. */
function formatError(file: string, doc: unknown, errors: readonly ErrorObject[]): ManifestError {
  const best = [...errors].sort((a, b) => depth(b) - depth(a))[0];
  const segments = best ? best.instancePath.split('/').slice(1) : [];
  let route: string | undefined;
  let keyStart = 0;
  if (segments[0] === 'routes' && segments.length >= 2) {
    const entry = (doc as { routes?: { route?: string }[] }).routes?.[Number(segments[1])];
    route = entry?.route ?? `#${segments[1]}`;
    keyStart = 2;
  }
  const key = [...segments.slice(keyStart), missing(best)].filter(Boolean).join('.');
  return new ManifestError(file, describe(best), { route, key: key || undefined });
}

function depth(error: ErrorObject): number {
  // oneOf/not wrappers report at the parent; the deepest concrete error is the useful one.
  const generic = error.keyword === 'oneOf' || error.keyword === 'not' || error.keyword === 'anyOf' ? -100 : 0;
  return error.instancePath.split('/').length * 10 + generic;
}

function missing(error?: ErrorObject): string | undefined {
  if (!error) return undefined;
  if (error.keyword === 'additionalProperties') return String(error.params.additionalProperty);
  if (error.keyword === 'required') return String(error.params.missingProperty);
  return undefined;
}

function describe(error?: ErrorObject): string {
  if (!error) return 'does not match the manifest format';
  if (error.keyword === 'additionalProperties') return 'unknown key';
  if (error.keyword === 'required') return 'required key is missing';
  if (error.keyword === 'enum') return `must be one of ${(error.params.allowedValues as unknown[]).join(', ')}`;
  return error.message ?? 'does not match the manifest format';
}
