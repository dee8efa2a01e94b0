// The composition root: builds the adapters a config names and hands them, with the feature modules
// it lists, to the engine. The only module that knows every adapter and feature.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, type App } from '../engine/app.js';
import type { SettingBounds } from '../engine/manifest/bounds.js';
import { checkSettings, coreSettingNames } from '../engine/config.js';
import { mergeModules, type MergedModules } from '../engine/modules.js';
import { codes } from '../engine/service-errors.js';
import { createLogger } from '../engine/log.js';
import { projectRoot } from '../engine/manifest/load.js';
import { SERVICE_VERSION } from '../engine/openapi.js';
import type { Config, FeatureModule, KeyStore, Logger, OrderedGuard, RouteGuard, SessionStore, UpstreamAdapter } from '../engine/types.js';
import { openKeyStore } from '../adapters/store/keys.js';
import { openStore, storeTimeoutMs } from '../adapters/store/index.js';
import { openLease } from '../adapters/store/lease.js';
import { openWork } from '../adapters/work/index.js';
import { zipFiles } from '../adapters/transfer/zip.js';
import { contentTypeFor } from '../adapters/transfer/content-type.js';
import { downloadGuard, PLATFORM_MEDIA_HOSTS } from '../adapters/transfer/download-guard.js';
import { MEDIA_HOST as SANDBOX_MEDIA_HOST } from '../adapters/upstream/sandbox/files.js';
import { resolvers } from '../engine/resolvers.js';
import { transferSettingsFor } from '../adapters/transfer/settings.js';
import { createSandbox, sandboxOptionsFromEnv } from '../adapters/upstream/sandbox/index.js';
import { ADAPTER_MODULES } from './settings.js';
import { authModule } from '../plugins/auth/module.js';
import { consoleModule } from '../plugins/console/module.js';
import { eventsModule, webhooksModule } from '../plugins/events/module.js';
import { jobsModule } from '../plugins/jobs/module.js';
import { keysModule } from '../plugins/keys/module.js';
import { poolsModule } from '../plugins/pools/index.js';
import { systemModule } from '../plugins/system/module.js';
import { uploadModule } from '../plugins/upload/module.js';
import { eventsSettingsFrom } from '../adapters/events/settings.js';
import { streamCapFor } from '../plugins/upload/index.js';
import { policyModule } from '../plugins/policy/module.js';
import { writesModule } from '../plugins/writes/module.js';

export interface ComposeOverrides {
  readonly upstream?: UpstreamAdapter;
  readonly store?: SessionStore;
  readonly log?: Logger;
  readonly keys?: KeyStore;
  /** Route guards run outside the product's own (tests observe or refuse calls with them). */
  readonly guards?: readonly RouteGuard[];
  /** Route guards placed among the product's by order (a test's stand-in for one of them). */
  readonly placedGuards?: readonly OrderedGuard[];
  /** The clock the modules' state reads: the account-safety policy's (tests move it). */
  readonly clock?: () => number;
}

/**
 * The feature modules, in order: what each brings (plugins, errors, settings, event types, session
 * sources and views, assets) is merged at boot, and two declaring one name stop it. Each app starts
 * them after the modules they need (engine/module-start.ts) and orders their guards by their `order`.
 */
export const FEATURES: readonly FeatureModule[] = [
  systemModule,
  authModule,
  uploadModule,
  eventsModule,
  webhooksModule,
  jobsModule,
  poolsModule,
  consoleModule,
  keysModule,
  policyModule,
  writesModule,
];

/** The features and the adapters' settings, merged once (the table is the same for every app of the process). */
let merged: MergedModules | undefined;
export function productModules(): MergedModules {
  merged ??= mergeModules([...ADAPTER_MODULES, ...FEATURES], { errors: codes(), settings: coreSettingNames() });
  return merged;
}

export async function composeApp(config: Config, overrides: ComposeOverrides = {}): Promise<App> {
  checkSettings(config.extra, productModules().settings); // a misspelt name or a bad value stops the start by name
  const log = overrides.log ?? createLogger(config.logLevel);
  const upstream = overrides.upstream ?? (await createUpstream(config, log));
  const store = overrides.store ?? (await openStore(config, { log }));
  const lease = openLease(config, log);
  const keys = overrides.keys ?? (await openKeyStore(config.store, storeTimeoutMs(config.extra)));
  const keysAtBoot = (await keys.all().catch(() => [])).length > 0;
  const parts = productParts(config, overrides.placedGuards);
  const { guards, clock } = overrides;
  return createApp({ config, upstream, store, log, lease, keys, keysAtBoot, ...parts, guards, clock, build: buildInfo(), deps: depsInfo() });
}

/** The product's modules, plugins, extra resolvers, file helpers and background layer: what createApp and the loader need. */
export function productParts(config: Config, placedGuards: readonly OrderedGuard[] = []) {
  const modules = productModules();
  // Each file field is cut off at its own kind's limit while it streams, not after it is on disk.
  const limits = { fileCap: streamCapFor(transferSettingsFor(config.extra)) };
  const work = (log: Logger) => openWork(config, log);
  return {
    plugins: modules.plugins,
    resolvers: { ...modules.resolvers, ...productResolvers(config) },
    zip: zipFiles,
    contentType: contentTypeFor,
    limits,
    work,
    modules: placedGuards.length ? [...modules.modules, placed(placedGuards)] : modules.modules,
    bounds: productBounds(config),
    assets: modules.assets,
    keyProofs: modules.keyProofs,
    errors: modules.errors,
  };
}

/** A module of nothing but guards placed among the product's (tests). */
const placed = (guards: readonly OrderedGuard[]): FeatureModule => ({ name: 'placed-guards', guards: () => guards });

/** For tools that load the manifest without serving (openapi, routes, audit). */
export function productRegistries(config: Config) {
  const modules = productModules();
  return {
    plugins: modules.plugins,
    registries: { resolvers: { ...resolvers, ...productResolvers(config) } },
    bounds: productBounds(config),
    errors: modules.errors,
  };
}

/** Bounds that settings decide, documented and validated as configured: the watch interval's floor. */
export function productBounds(config: Config): SettingBounds {
  const interval = { interval_seconds: { minimum: eventsSettingsFrom(config.extra).watchFloorMs / 1000 } };
  return { 'POST /events/watch': interval, 'POST /console/sessions/watch': interval };
}

function productResolvers(config: Config) {
  const hosts =
    config.extra.DOWNLOAD_HOSTS?.split(',')
      .map((h) => h.trim())
      .filter(Boolean) ?? PLATFORM_MEDIA_HOSTS;
  // The sandbox serves its own media host without any network: nothing to resolve or guard there.
  const trusted = config.upstream === 'sandbox' ? [new URL(SANDBOX_MEDIA_HOST).hostname] : [];
  return { download_url: downloadGuard({ hosts, trusted, allow: transferSettingsFor(config.extra).fetch.allow }) };
}

/** `log` receives the sidecar's stderr (redacted there) and its start and death notices. */
export async function createUpstream(config: Config, log?: Logger): Promise<UpstreamAdapter> {
  if (config.upstream === 'aiograpi') {
    const { createAiograpi, aiograpiOptionsFromEnv } = await import('../adapters/upstream/aiograpi/index.js');
    return createAiograpi({ ...aiograpiOptionsFromEnv(config.extra), log });
  }
  return createSandbox({ ...sandboxOptionsFromEnv(config.extra), seed: config.seed });
}

let build: Record<string, string> | undefined;
/** Read once: name, version, Node, git commit and the time `npm run build` ran. */
export function buildInfo(): Record<string, string> {
  if (build) return build;
  const root = projectRoot();
  const written = readJson(join(root, 'dist', 'build-info.json'));
  build = {
    name: 'socialgate',
    version: SERVICE_VERSION,
    node: process.version,
    git_sha: process.env.SOCIALGATE_GIT_SHA ?? String(written.git_sha ?? gitSha(root)),
    build_time: String(written.build_time ?? 'unknown'),
  };
  return build;
}

let deps: Record<string, string> | undefined;
/** Runtime dependency versions as installed, read once from each package's package.json. */
export function depsInfo(): Record<string, string> {
  if (deps) return deps;
  const root = projectRoot();
  const names = Object.keys((readJson(join(root, 'package.json')).dependencies ?? {}) as Record<string, string>);
  deps = { node: process.versions.node };
  for (const name of names.sort()) deps[name] = String(readJson(join(root, 'node_modules', name, 'package.json')).version ?? 'missing');
  return deps;
}

function readJson(path: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

function gitSha(root: string): string {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}
