// socialgate audit: classify the upstream's public methods against the upstream names the manifest
// and the plugins use. Methods come from the installed aiograpi (through the sidecar's introspection)
// or from a methods.json given with --methods. Fails (exit 1) on a manifest name the upstream lacks.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { aiograpiOptionsFromEnv, createAiograpi, type MethodsDocument } from '../adapters/upstream/aiograpi/index.js';
import { classify, type AuditRoute } from '../adapters/upstream/aiograpi/coverage.js';
import { formatMarkdown, formatText } from '../adapters/upstream/aiograpi/coverage-format.js';
import { defaultManifestDir, loadManifest } from '../engine/manifest/load.js';
import { loadConfig } from '../engine/config.js';
import { productRegistries } from './compose.js';

const USAGE = `usage: socialgate audit [--json | --markdown] [--methods FILE] [--manifest DIR] [--python PATH]

  --methods FILE   read the upstream's methods from a methods.json instead of the installed aiograpi
  --manifest DIR   the manifest folder (default: the service's own)
  --python PATH    interpreter with aiograpi installed (default: SOCIALGATE_PYTHON or python3)
  --json           {upstream_total, exposed, duplicate, internal, candidate, areas, routes, unknown, methods}
  --markdown       a page for the docs
exit status: 0 when every upstream name the manifest uses exists, 1 when some do not, 2 on a usage error
`;

export interface AuditDeps {
  /** Routes with every upstream method each may reach (calls, resolvers, plugin). */
  readonly loadRoutes: (manifestDir?: string) => readonly AuditRoute[];
  /** The installed library's public methods. */
  readonly introspect: (python?: string) => Promise<MethodsDocument>;
}

const defaultDeps: AuditDeps = {
  loadRoutes: (dir) =>
    loadManifest(dir ?? defaultManifestDir(), productRegistries(loadConfig([]))).routes.map((r) => ({ method: r.method, path: r.path, upstream: r.upstreamMethods })),
  introspect: (python) => introspectInstalled(python, process.env),
};

export async function runAudit(argv: string[], out: (s: string) => void, deps: Partial<AuditDeps> = {}): Promise<number> {
  const { loadRoutes, introspect } = { ...defaultDeps, ...deps };
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
  const doc = args.methods ? readMethods(args.methods) : await introspect(args.python);
  const report = classify(doc, loadRoutes(args.manifest));
  if (args.json) out(`${JSON.stringify(report, null, 2)}\n`);
  else if (args.markdown) out(formatMarkdown(report));
  else out(formatText(report));
  return report.unknown.length ? 1 : 0;
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
    if (!ready.ok) throw new Error(`${ready.detail} (install it with pip install aiograpi==1.0.9, or pass --methods FILE)`);
    return await adapter.introspect();
  } finally {
    await adapter.close();
  }
}
