// The sandbox upstream: a simulated platform in process, generated from a seed, implementing
// every upstream method the manifest names with the upstream's parameters, shapes and errors.
import { createHmac } from 'node:crypto';
import { invalidParams } from '../../../engine/service-errors.js';
import type { ClientOptions, HappeningRequest, ReadyCheck, UpstreamAdapter, UpstreamClient } from '../../../engine/types.js';
import { SandboxClient, upgradeAppProfile } from './client.js';
import { ALL_TABLES } from './methods/index.js';
import { WALKS } from './methods/iterators.js';
import { createRng, hash32 } from './prng.js';
import { ActionLimits } from './limits.js';
import { happen, LIVE_KINDS, LiveError, tickRequest, type Happened, type LiveKind, type LiveRequest } from './live.js';
import { mergeTables, methodsOf, SANDBOX_VERSIONS, signaturesFor, type SandboxCore, type SandboxVersion } from './registry.js';
import { generateWorld } from './world/generate.js';
import type { World } from './world/types.js';

export { sandboxFileBytes, parseMediaUrl, mediaUrls } from './files.js';
import { parseMediaUrl, sandboxFileBytes } from './files.js';
export { codeFromPk, pkFromCode } from './codes.js';
export { FIXED, PASSWORD, TOTP_SEED, CHALLENGE_CODE } from './world/users.js';

export interface SandboxOptions {
  /** World seed (default 1): the same seed always generates the same world. */
  readonly seed?: number;
  /** Added latency per platform call, in milliseconds. */
  readonly latencyMs?: number;
  /** Share of platform calls (0..1) that raise PleaseWaitFewMinutes. */
  readonly throttleRate?: number;
  /** The wait an injected throttle asks for, in seconds (default 3): short, so a client's retry can be seen to work. */
  readonly throttleSeconds?: number;
  /** Share of platform calls (0..1) that raise ClientConnectionError. */
  readonly errorRate?: number;
  /** Share of writes (0..1) applied and then failed as a lost connection (ClientConnectionError): what reconciliation is tested with. */
  readonly lostAnswerRate?: number;
  /** Clock in epoch milliseconds (tests pin it). */
  readonly now?: () => number;
  /** One happening per account in use this often, in seconds (0 or absent: a still world). */
  readonly liveSeconds?: number;
  /** Multiplies the platform's hidden hourly limits per action class (limits.ts; default 1, 0: none). */
  readonly limitScale?: number;
  /** How long the platform blocks a class whose limit was passed, in seconds (default 900). */
  readonly blockSeconds?: number;
  /** The aiograpi version the sandbox plays (default 1.0.9, the specification's): 1.12.13 adds the methods and keywords 1.12 brought. */
  readonly version?: SandboxVersion;
}

export interface SandboxAdapter extends UpstreamAdapter {
  /** Every upstream method name the sandbox implements. */
  readonly methods: ReadonlySet<string>;
  /** The generated world (for tests and tools; callers must not mutate it). */
  readonly world: World;
  /** The platform cookie's sessionid of an account of this world (for POST /auth/login/by/sessionid in tests and benches). */
  sessionIdFor(pk: string): string;
  /** POST /sandbox/activity: makes one thing happen to an account now; a bad request is a validation error naming the field. */
  happen(account: string, request: HappeningRequest): Happened;
}

/** A happening asked for through the upstream port, its kind checked against the live world's. */
function liveRequest(request: HappeningRequest): LiveRequest {
  if (!(LIVE_KINDS as readonly string[]).includes(request.kind)) throw new LiveError('kind', `one of ${LIVE_KINDS.join(', ')}`);
  return { ...request, kind: request.kind as LiveKind };
}

/** The world's refusals, as the service's validation error naming the field (the port's contract). */
function asParams<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (error instanceof LiveError) throw invalidParams([{ param: error.param, problem: error.message }]);
    throw error;
  }
}

/** Accounts that called within this long get the live world's happenings. */
const IN_USE_MS = 3_600_000;

const ALL_METHODS = mergeTables(ALL_TABLES);

export function createSandbox(options: SandboxOptions = {}): SandboxAdapter {
  const seed = options.seed ?? 1;
  const now = options.now ?? Date.now;
  const world = generateWorld(seed, now());
  const key = createHmac('sha256', 'socialgate-sandbox').update(String(seed)).digest();
  const inUse = new Map<string, number>();
  const version = options.version ?? SANDBOX_VERSIONS[0];
  const signatures = signaturesFor(version);
  const methods = methodsOf(ALL_METHODS, signatures);
  const core: SandboxCore = {
    world,
    now,
    signatures,
    used: (pk) => void inUse.set(pk, now()),
    sessionFor: (pk) => `${pk}%3A${sign(key, pk)}%3A28`,
    verifySession(sessionid) {
      const [pk, signature] = decodeURIComponent(sessionid).split(':');
      return pk && signature === sign(key, pk) ? pk : null;
    },
  };
  const faults = {
    latencyMs: options.latencyMs ?? 0,
    throttleRate: options.throttleRate ?? 0,
    throttleSeconds: options.throttleSeconds ?? 3,
    errorRate: options.errorRate ?? 0,
    lostAnswerRate: options.lostAnswerRate ?? 0,
    rng: createRng(seed ^ 0x5eed),
    limits: new ActionLimits({ seed, now, scale: options.limitScale ?? 1, blockSeconds: options.blockSeconds ?? 900 }),
  };
  const live = options.liveSeconds ? liveClock(world, inUse, now, options.liveSeconds * 1000) : undefined;
  let happenings = 0;
  return {
    name: 'sandbox',
    sessionIdFor: (pk) => decodeURIComponent(core.sessionFor(pk)),
    happen: (account, request) =>
      asParams(() => happen(world, account, liveRequest(request), Math.floor(now() / 1000), hash32(`${seed}:now:${now()}:${++happenings}`))),
    library: { name: 'aiograpi', version, emulated: true, ...capabilitiesOf(methods) },
    methods: new Set(methods.keys()),
    world,
    mediaBytes(url) {
      const media = parseMediaUrl(url);
      return media ? sandboxFileBytes(media.kind, media.key) : undefined;
    },
    async open(clientOptions: ClientOptions): Promise<UpstreamClient> {
      const client = new SandboxClient(core, methods, faults, clientOptions.settings ?? {});
      if (clientOptions.locale) client.state.locale = clientOptions.locale;
      if (clientOptions.timezone !== undefined) client.state.timezoneOffset = clientOptions.timezone;
      if (clientOptions.proxy) client.state.proxy = clientOptions.proxy;
      if (clientOptions.upgradeAppProfile) upgradeAppProfile(client.state);
      return client;
    },
    async ready(): Promise<ReadyCheck> {
      return { ok: true };
    },
    async close(): Promise<void> {
      live?.stop();
    },
  };
}

/**
 * Each tick, one happening for every account in use, decided by the seed, the tick and the account.
 * Ticks fall just after whole multiples of the interval on the wall clock, so every instance with
 * the seed names the same tick and makes the same thing happen.
 */
function liveClock(world: World, inUse: Map<string, number>, now: () => number, everyMs: number): { stop(): void } {
  let timer: NodeJS.Timeout | undefined;
  const tickNow = () => {
    const at = now();
    const tick = Math.floor(at / everyMs);
    for (const [account, last] of inUse) {
      if (at - last > IN_USE_MS) {
        inUse.delete(account);
        continue;
      }
      const { request, salt } = tickRequest(world, account, tick);
      try {
        happen(world, account, request, Math.floor(at / 1000), salt);
      } catch {
        // an account with nothing to like, or nobody left to follow it: this tick passes it by
      }
    }
  };
  const schedule = () => {
    timer = setTimeout(
      () => {
        tickNow();
        schedule();
      },
      everyMs - (now() % everyMs) + 20,
    );
    timer.unref();
  };
  schedule();
  return { stop: () => clearTimeout(timer) };
}

function sign(key: Buffer, pk: string): string {
  return createHmac('sha256', key).update(pk).digest('base64url').slice(0, 22);
}

const SETTINGS = {
  SANDBOX_SEED: { option: 'seed', min: 0, max: 2 ** 32 - 1, integer: true },
  SANDBOX_LATENCY_MS: { option: 'latencyMs', min: 0, max: 60_000, integer: true },
  SANDBOX_THROTTLE_RATE: { option: 'throttleRate', min: 0, max: 1, integer: false },
  SANDBOX_THROTTLE_SECONDS: { option: 'throttleSeconds', min: 1, max: 86_400, integer: true },
  SANDBOX_ERROR_RATE: { option: 'errorRate', min: 0, max: 1, integer: false },
  SANDBOX_LOST_ANSWER_RATE: { option: 'lostAnswerRate', min: 0, max: 1, integer: false },
  SANDBOX_LIVE_SECONDS: { option: 'liveSeconds', min: 0, max: 86_400, integer: false },
  SANDBOX_LIMIT_SCALE: { option: 'limitScale', min: 0, max: 1000, integer: false },
  SANDBOX_BLOCK_SECONDS: { option: 'blockSeconds', min: 1, max: 86_400, integer: true },
} as const;

/** Reads SANDBOX_* settings (config.extra holds SOCIALGATE_* variables without the prefix). */
export function sandboxOptionsFromEnv(extra: Readonly<Record<string, string>>): SandboxOptions {
  // Alive by default: `npm start` shows a world where things happen (tests set 0 for a still one).
  const out: Record<string, number> = { liveSeconds: 60 };
  for (const [name, rule] of Object.entries(SETTINGS)) {
    const raw = extra[name];
    if (raw === undefined || raw.trim() === '') continue;
    const value = Number(raw);
    const ok = Number.isFinite(value) && value >= rule.min && value <= rule.max && (!rule.integer || Number.isInteger(value));
    if (!ok) throw new Error(`SOCIALGATE_${name}: expected ${rule.integer ? 'an integer' : 'a number'} from ${rule.min} to ${rule.max}, got "${raw}"`);
    out[rule.option] = value;
  }
  return { ...(out as SandboxOptions), ...versionFromEnv(extra.SANDBOX_VERSION) };
}

function versionFromEnv(raw: string | undefined): Pick<SandboxOptions, 'version'> {
  if (raw === undefined || raw.trim() === '') return {};
  const version = SANDBOX_VERSIONS.find((known) => known === raw.trim());
  if (!version) throw new Error(`SOCIALGATE_SANDBOX_VERSION: the sandbox plays aiograpi ${SANDBOX_VERSIONS.join(' or ')}, got "${raw}"`);
  return { version };
}

/** What the played version can do, as the sidecar tells the real library's: 1.12.13's async iterators (1.0.9 has none). */
function capabilitiesOf(methods: ReadonlyMap<string, unknown>): { capabilities?: { iterators: string[] } } {
  const iterators = Object.keys(WALKS).filter((name) => methods.has(name));
  return iterators.length ? { capabilities: { iterators } } : {};
}
