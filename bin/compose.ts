// The composition root: builds the adapters a config names and hands them to the engine. The only
// module that knows every adapter and plugin.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createApp, type App } from '../engine/app.js';
import type { SettingBounds } from '../engine/manifest/bounds.js';
import { checkExtraKeys } from '../engine/config.js';
import { createLogger } from '../engine/log.js';
import { projectRoot } from '../engine/manifest/load.js';
import { SERVICE_VERSION } from '../engine/openapi.js';
import type { Background, Config, KeyStore, Logger, RouteGuard, SessionStore, UpstreamAdapter } from '../engine/types.js';
import { openKeyStore } from '../adapters/store/keys.js';
import { openStore, STORE_SETTING_KEYS, storeTimeoutMs } from '../adapters/store/index.js';
import { LEASE_SETTING_KEYS, leaseSettings, openLease } from '../adapters/store/lease.js';
import { lockMsOf, openWork, WORK_SETTING_KEYS } from '../adapters/work/index.js';
import { zipFiles } from '../adapters/transfer/zip.js';
import { contentTypeFor } from '../adapters/transfer/content-type.js';
import { downloadGuard, PLATFORM_MEDIA_HOSTS } from '../adapters/transfer/download-guard.js';
import { MEDIA_HOST as SANDBOX_MEDIA_HOST } from '../adapters/upstream/sandbox/files.js';
import { resolvers } from '../engine/resolvers.js';
import { TRANSFER_DEFAULTS, transferSettingsFor } from '../adapters/transfer/settings.js';
import { createSandbox, sandboxOptionsFromEnv } from '../adapters/upstream/sandbox/index.js';
import { plugins } from '../plugins/index.js';
import { installJobs, JOB_SETTING_KEYS, jobSettings } from '../plugins/jobs/index.js';
import { EVENTS_SETTING_KEYS, installEvents } from '../plugins/events/index.js';
import { eventsSettingsFrom } from '../adapters/events/settings.js';
import { streamCapFor } from '../plugins/upload/index.js';
import { policyGuard, POLICY_SETTING_KEYS, policySettings } from '../plugins/policy/index.js';
import { idempotencyGuards, WRITES_SETTING_KEYS } from '../plugins/writes/index.js';
import { installWrites, SCHEDULE_SETTING_KEYS, scheduleGuard, scheduleSettings } from '../plugins/writes/schedule.js';
import { deferGuard } from '../plugins/writes/defer.js';
import { FREEZE_SETTING_KEYS, freezeGuard, freezeSettings } from '../plugins/policy/freeze.js';

export interface ComposeOverrides {
  readonly upstream?: UpstreamAdapter;
  readonly store?: SessionStore;
  readonly log?: Logger;
  readonly keys?: KeyStore;
  /** Route guards run outside the product's own (tests observe or refuse calls with them). */
  readonly guards?: readonly RouteGuard[];
  /** The account-safety policy's clock (tests move it). */
  readonly policyClock?: () => number;
}

/**
 * SOCIALGATE_* settings read by adapters and plugins (beyond the core ones in engine/config.ts).
 * Checked at start so that a misspelt setting is an error, not a silent default.
 */
const EXTRA_KEYS = [
  'SANDBOX_LATENCY_MS', 'SANDBOX_THROTTLE_RATE', 'SANDBOX_THROTTLE_SECONDS', 'SANDBOX_ERROR_RATE', 'SANDBOX_LOST_ANSWER_RATE', // sandbox fault injection (the seed is SOCIALGATE_SEED)
  'SANDBOX_LIVE_SECONDS', // the live sandbox world's clock
  'SANDBOX_LIMIT_SCALE', 'SANDBOX_BLOCK_SECONDS', // the sandbox's hidden limits per action class
  'SANDBOX_VERSION', // the aiograpi version the sandbox plays
  'PYTHON', 'PYTHONPATH', 'SIDECAR_PROCESSES', 'SIDECAR_TIMEOUT_MS', 'SIDECAR_LOG_LEVEL', // aiograpi sidecar
  ...Object.keys(TRANSFER_DEFAULTS), 'FETCH_ALLOW', // uploads and by-URL fetches
  'DOWNLOAD_HOSTS', // hosts the by-URL download routes may name
  'SESSION_KEY', 'SESSION_KEY_FILE', 'SESSION_IDLE_DAYS', // session encryption and expiry
  ...STORE_SETTING_KEYS, // the session store's call timeout
  ...LEASE_SETTING_KEYS, // one call at a time per session across instances
  'GIT_SHA', // /build, when the build has no git checkout
  ...JOB_SETTING_KEYS, // pacing of jobs
  ...WORK_SETTING_KEYS, // the background layer
  ...EVENTS_SETTING_KEYS, // events, watchers and webhooks
  ...POLICY_SETTING_KEYS, // the account-safety policy's warm-up, interactive share and window reads
  ...WRITES_SETTING_KEYS, // idempotency keys
  ...SCHEDULE_SETTING_KEYS, // scheduled and deferred writes
  ...FREEZE_SETTING_KEYS, // action classes the platform blocked
];

/** Background modules, each defining its work kinds before the queue starts. */
const background: readonly Background[] = [installEvents, installJobs, installWrites];

export async function composeApp(config: Config, overrides: ComposeOverrides = {}): Promise<App> {
  checkExtraKeys(config.extra, EXTRA_KEYS);
  jobSettings(config.extra); // a bad pacing value stops the start
  eventsSettingsFrom(config.extra);
  policySettings(config.policy, config.extra);
  scheduleSettings(config.extra);
  lockMsOf(config.extra);
  storeTimeoutMs(config.extra);
  leaseSettings(config.extra);
  freezeSettings(config.extra);
  transferSettingsFor(config.extra); // parse the transfer limits now: a bad value stops the start
  const log = overrides.log ?? createLogger(config.logLevel);
  const upstream = overrides.upstream ?? (await createUpstream(config, log));
  const store = overrides.store ?? (await openStore(config, { log }));
  const lease = openLease(config, log);
  const keys = overrides.keys ?? (await openKeyStore(config.store, storeTimeoutMs(config.extra)));
  const keysAtBoot = (await keys.all().catch(() => [])).length > 0;
  const parts = productParts(config, { policyClock: overrides.policyClock });
  const guards = [...(overrides.guards ?? []), ...parts.guards];
  return createApp({ config, upstream, store, log, lease, keys, keysAtBoot, ...parts, guards, build: buildInfo(), deps: depsInfo() });
}

/** The product's plugins, extra resolvers, file helpers and background layer: what createApp and the loader need. */
export function productParts(config: Config, options: { readonly policyClock?: () => number } = {}) {
  // Each file field is cut off at its own kind's limit while it streams, not after it is on disk.
  const limits = { fileCap: streamCapFor(transferSettingsFor(config.extra)) };
  const work = (log: Logger) => openWork(config, log);
  // The features' route guards, outermost first: exactly-once writes (idempotency keys) first (a replay
  // spends no budget); a deferred write catches the policy's refusal and a scheduled one spends no
  // budget now, so both sit outside the account-safety policy, which goes last.
  const guards: readonly RouteGuard[] = [...idempotencyGuards(config.extra), deferGuard, scheduleGuard, freezeGuard(freezeSettings(config.extra)), policyGuard({ now: options.policyClock })];
  return { plugins, resolvers: productResolvers(config), zip: zipFiles, contentType: contentTypeFor, limits, work, background, bounds: productBounds(config), guards };
}

/** For tools that load the manifest without serving (openapi, routes, audit). */
export function productRegistries(config: Config) {
  return { plugins, registries: { resolvers: { ...resolvers, ...productResolvers(config) } }, bounds: productBounds(config) };
}

/** Bounds that settings decide, documented and validated as configured: the watch interval's floor. */
export function productBounds(config: Config): SettingBounds {
  const interval = { interval_seconds: { minimum: eventsSettingsFrom(config.extra).watchFloorMs / 1000 } };
  return { 'POST /events/watch': interval, 'POST /console/sessions/watch': interval };
}

function productResolvers(config: Config) {
  const hosts = config.extra.DOWNLOAD_HOSTS?.split(',').map((h) => h.trim()).filter(Boolean) ?? PLATFORM_MEDIA_HOSTS;
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
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return 'unknown';
  }
}
