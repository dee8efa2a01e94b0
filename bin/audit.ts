// socialgate audit: classify the upstream's public methods against the upstream names the manifest
// and the plugins use, and check every keyword they pass. Methods come from the installed aiograpi
// (through the sidecar's introspection), from a methods.json given with --methods, or, when no
// aiograpi is importable, from the list of the spec's aiograpi that ships with the package.
// Fails (exit 1) on a manifest name or keyword the upstream lacks.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { aiograpiOptionsFromEnv, createAiograpi, type MethodsDocument } from '../adapters/upstream/aiograpi/index.js';
import { classify, type AuditRoute } from '../adapters/upstream/aiograpi/coverage.js';
import { shippedMethodsPath } from '../adapters/upstream/aiograpi/options.js';
import { formatMarkdown, formatText } from '../adapters/upstream/aiograpi/coverage-format.js';
import { defaultManifestDir, loadManifest } from '../engine/manifest/load.js';
import { loadConfig } from '../engine/config.js';
import type { Plugin, RouteSpec } from '../engine/types.js';
import { productRegistries } from './compose.js';

const USAGE = `usage: socialgate audit [--json | --markdown] [--methods FILE] [--manifest DIR] [--python PATH]

  --methods FILE   read the upstream's methods from a methods.json instead of the installed aiograpi
                   (without either, the aiograpi 1.0.9 list shipped with socialgate is used)
  --manifest DIR   the manifest folder (default: the service's own)
  --python PATH    interpreter with aiograpi installed (default: SOCIALGATE_PYTHON or python3)
  --json           {upstream_total, exposed, duplicate, internal, candidate, areas, routes, unknown, methods}
  --markdown       a page for the docs
exit status: 0 when every upstream name and keyword the manifest uses exists, 1 when some do not, 2 on a usage error
`;

export interface AuditDeps {
  /** Routes with every upstream method each may reach (calls, resolvers, plugin). */
  readonly loadRoutes: (manifestDir?: string) => readonly AuditRoute[];
  /** The installed library's public methods; rejects when no aiograpi is importable. */
  readonly introspect: (python?: string) => Promise<MethodsDocument>;
  /** Where notes go (stderr), so --json and --markdown output stays clean for a redirect. */
  readonly note: (text: string) => void;
}

const defaultDeps: AuditDeps = {
  loadRoutes: (dir) => {
    const { plugins, registries } = productRegistries(loadConfig([]));
    return loadManifest(dir ?? defaultManifestDir(), { plugins, registries }).routes.map((r) => auditRoute(r, r.plugin ? plugins[r.plugin] : undefined));
  },
  introspect: (python) => introspectInstalled(python, process.env),
  note: (text) => void process.stderr.write(text),
};

/** A route as the audit sees it: every method it may reach and the keywords its calls and plugin pass. */
export function auditRoute(route: RouteSpec, plugin?: Plugin): AuditRoute {
  const keywords: Record<string, string[]> = {};
  const add = (method: string, names: readonly string[]): void => {
    keywords[method] = [...new Set([...(keywords[method] ?? []), ...names])].sort();
  };
  for (const call of route.calls) add(call.method, Object.keys(call.args));
  for (const [method, names] of Object.entries(plugin?.keywords ?? {})) add(method, names);
  // Keywords of parameters a newer library added (manifest `since`): missing from an older one by design.
  const since = Object.fromEntries(route.params.filter((p) => p.since && p.upstream).map((p) => [p.upstream!, p.since!]));
  const needs = route.since ? { needs: route.since } : {};
  return { method: route.method, path: route.path, upstream: route.upstreamMethods, keywords, ...(Object.keys(since).length ? { since } : {}), ...needs };
}

export async function runAudit(argv: string[], out: (s: string) => void, deps: Partial<AuditDeps> = {}): Promise<number> {
  const { loadRoutes, introspect, note } = { ...defaultDeps, ...deps };
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (error) {
    out(`socialgate audit: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    out(USAGE);
    return 0;
  }
  const shipped = readMethods(shippedMethodsPath());
  const doc = args.methods ? readMethods(args.methods) : await installedOrShipped(introspect, args.python, shipped, note);
  const report = classify(doc, loadRoutes(args.manifest), shipped);
  if (args.json) out(`${JSON.stringify(report, null, 2)}\n`);
  else if (args.markdown) out(formatMarkdown(report));
  else out(formatText(report));
  return report.unknown.length || report.missing_keywords.length ? 1 : 0;
}

/** The installed library when one is importable; otherwise the shipped list, saying so. */
async function installedOrShipped(
  introspect: AuditDeps['introspect'],
  python: string | undefined,
  shipped: MethodsDocument,
  note: AuditDeps['note'],
): Promise<MethodsDocument> {
  try {
    return await introspect(python);
  } catch (error) {
    // An interpreter asked for by name must work: falling back would hide the mistake.
    if (python) throw error;
    note(`socialgate audit: ${(error as Error).message}; using the method list of aiograpi ${shipped.version} shipped with socialgate\n`);
    return shipped;
  }
}

function parse(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      json: { type: 'boolean', default: false },
      markdown: { type: 'boolean', default: false },
      methods: { type: 'string' },
      manifest: { type: 'string' },
      python: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.json && values.markdown) throw new Error('choose one of --json and --markdown');
  return values;
}

/** A methods.json ({methods: [...]}) or a bare array of method records. */
export function readMethods(file: string): MethodsDocument {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read the method list ${file}: ${(error as Error).message}`);
  }
  const doc = (Array.isArray(value) ? { library: 'aiograpi', version: 'unknown', methods: value } : value) as Partial<MethodsDocument>;
  const valid = Array.isArray(doc.methods) && doc.methods.every((m) => typeof m?.name === 'string' && typeof m?.area === 'string');
  if (!valid) throw new Error(`${file} is not a method list: expected {methods: [{name, area, ...}]}`);
  return { library: doc.library ?? 'aiograpi', version: doc.version ?? 'unknown', methods: doc.methods ?? [] };
}

/** Starts a sidecar over the installed aiograpi just long enough to list its methods. */
async function introspectInstalled(python: string | undefined, env: NodeJS.ProcessEnv): Promise<MethodsDocument> {
  const extra: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (key.startsWith('SOCIALGATE_') && value !== undefined) extra[key.slice('SOCIALGATE_'.length)] = value;
  const adapter = createAiograpi({ ...aiograpiOptionsFromEnv(extra), ...(python ? { python } : {}) });
  try {
    const ready = await adapter.ready();
    if (!ready.ok) throw new Error(`${ready.detail} (install it with pip install 'aiograpi>=1.12', or pass --methods FILE)`);
    return await adapter.introspect();
  } finally {
    await adapter.close();
  }
}
