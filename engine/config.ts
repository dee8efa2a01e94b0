// Configuration from flags and environment variables, checked once at start: an unknown flag or a
// malformed value stops the start with a message naming it.
import { join } from 'node:path';
import { CONFIRM_CLASSES, TOOL_SETS, type Config, type SettingRow } from './types.js';

export interface Setting {
  readonly flag: string;
  readonly env: string;
  readonly key: keyof Config;
  readonly describe: string;
  readonly parse: (value: string) => unknown;
  readonly fallback: (partial: Partial<Config>) => unknown;
}

const integer = (name: string, min: number, max: number) => (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  return n;
};
const oneOf = (name: string, values: readonly string[]) => (value: string) => {
  if (!values.includes(value)) throw new Error(`${name} must be one of ${values.join(', ')}, got "${value}"`);
  return value;
};
const text = (value: string) => value;
/** A comma-separated subset of `values`; `none` (or nothing) is the empty list. */
const classList = (name: string, values: readonly string[]) => (value: string) => {
  const named = value
    .split(',')
    .map((one) => one.trim())
    .filter((one) => one && one !== 'none');
  for (const one of named) oneOf(name, values)(one);
  return [...new Set(named)];
};

export const SETTINGS: readonly Setting[] = [
  { flag: '--port', env: 'PORT', key: 'port', describe: 'TCP port to listen on', parse: integer('PORT', 0, 65535), fallback: () => 8000 },
  { flag: '--host', env: 'HOST', key: 'host', describe: 'Address to listen on (127.0.0.1 keeps it local)', parse: text, fallback: () => '127.0.0.1' },
  {
    flag: '--upstream',
    env: 'SOCIALGATE_UPSTREAM',
    key: 'upstream',
    describe: 'Upstream adapter: sandbox (simulated platform) or aiograpi (the real library)',
    parse: oneOf('SOCIALGATE_UPSTREAM', ['sandbox', 'aiograpi']),
    fallback: () => 'sandbox',
  },
  {
    flag: '--data-dir',
    env: 'SOCIALGATE_DATA_DIR',
    key: 'dataDir',
    describe: 'Folder for the session database and the encryption key file',
    parse: text,
    fallback: () => 'data',
  },
  {
    flag: '--store',
    env: 'SOCIALGATE_STORE',
    key: 'store',
    describe: 'Session store URL: sqlite://PATH, redis://HOST:PORT, postgres://..., memory://',
    parse: text,
    fallback: (c) => `sqlite://${join(c.dataDir ?? 'data', 'sessions.sqlite')}`,
  },
  {
    flag: '--cache-size',
    env: 'SOCIALGATE_CACHE_SIZE',
    key: 'cacheSize',
    describe: 'Live upstream clients kept in memory',
    parse: integer('SOCIALGATE_CACHE_SIZE', 1, 1_000_000),
    fallback: () => 1000,
  },
  {
    flag: '--seed',
    env: 'SOCIALGATE_SEED',
    key: 'seed',
    describe: 'Sandbox world seed (same seed, same world)',
    parse: integer('SOCIALGATE_SEED', 0, 2 ** 31 - 1),
    fallback: () => 1,
  },
  {
    flag: '--api-key',
    env: 'SOCIALGATE_API_KEY',
    key: 'apiKey',
    describe:
      'A key with every scope (named "default"); when set, or when named keys exist (socialgate keys add), every ' +
      'non-system route requires one (Authorization: Bearer KEY or X-API-Key)',
    parse: text,
    fallback: () => undefined,
  },
  {
    flag: '--metrics-open',
    env: 'SOCIALGATE_METRICS_OPEN',
    key: 'metricsOpen',
    describe: 'Serve /metrics without an API key (0 or 1); its pool gauge then names no pool',
    parse: (v) => oneOf('SOCIALGATE_METRICS_OPEN', ['0', '1'])(v) === '1',
    fallback: () => false,
  },
  {
    flag: '--log-level',
    env: 'SOCIALGATE_LOG_LEVEL',
    key: 'logLevel',
    describe: 'silent, error, warn or info',
    parse: oneOf('SOCIALGATE_LOG_LEVEL', ['silent', 'error', 'warn', 'info']),
    fallback: () => 'info',
  },
  {
    flag: '--session-cache-ttl-ms',
    env: 'SOCIALGATE_SESSION_CACHE_TTL_MS',
    key: 'sessionCacheTtlMs',
    describe: 'How long a cached session record is trusted before the store is read again',
    parse: integer('SOCIALGATE_SESSION_CACHE_TTL_MS', 0, 86_400_000),
    fallback: () => 30_000,
  },
  {
    flag: '--throttle-backoff-seconds',
    env: 'SOCIALGATE_THROTTLE_BACKOFF_SECONDS',
    key: 'throttleBackoffSeconds',
    describe: 'Governor back-off when a throttle error carries no hint',
    parse: integer('SOCIALGATE_THROTTLE_BACKOFF_SECONDS', 1, 86_400),
    fallback: () => 300,
  },
  {
    flag: '--upload-max-mb',
    env: 'SOCIALGATE_UPLOAD_MAX_MB',
    key: 'uploadMaxMb',
    describe: 'Largest multipart file accepted at all, in MB',
    parse: integer('SOCIALGATE_UPLOAD_MAX_MB', 1, 1_000_000),
    fallback: () => 2048,
  },
  {
    flag: '--mcp-tools',
    env: 'SOCIALGATE_MCP_TOOLS',
    key: 'mcpTools',
    describe: 'Tools of the MCP endpoint /mcp: core (the curated set), all, dynamic (find, describe, call) or none (no /mcp)',
    parse: oneOf('SOCIALGATE_MCP_TOOLS', TOOL_SETS),
    fallback: () => 'core',
  },
  {
    flag: '--mcp-allowed-hosts',
    env: 'SOCIALGATE_MCP_ALLOWED_HOSTS',
    key: 'mcpAllowedHosts',
    describe: 'Host names /mcp answers to beyond localhost and --host, comma-separated (DNS-rebinding protection)',
    parse: (v) =>
      v
        .split(',')
        .map((h) => h.trim())
        .filter(Boolean),
    fallback: () => [],
  },
  {
    flag: '--mcp-confirm',
    env: 'SOCIALGATE_MCP_CONFIRM',
    key: 'mcpConfirm',
    describe: `MCP tool calls a human must confirm (elicitation), comma-separated: write classes (${CONFIRM_CLASSES.join(', ')}) or none`,
    parse: classList('SOCIALGATE_MCP_CONFIRM', CONFIRM_CLASSES),
    fallback: () => ['direct', 'follow', 'post', 'delete'],
  },
  {
    flag: '--policy',
    env: 'SOCIALGATE_POLICY',
    key: 'policy',
    describe:
      'Account-safety preset: budgets per action class per minute, hour and day (off, safe, standard, fast); a session may choose its own (PATCH /policy)',
    parse: oneOf('SOCIALGATE_POLICY', ['off', 'safe', 'standard', 'fast']),
    fallback: () => 'standard',
  },
  {
    flag: '--trust-proxy',
    env: 'SOCIALGATE_TRUST_PROXY',
    key: 'trustProxy',
    describe: 'Trust X-Forwarded-* headers from a reverse proxy (0 or 1)',
    parse: (v) => oneOf('SOCIALGATE_TRUST_PROXY', ['0', '1'])(v) === '1',
    fallback: () => false,
  },
];

const PREFIX = 'SOCIALGATE_';
const CORE_ENV = new Set(SETTINGS.map((s) => s.env));

/** Reads flags (`--port 9000` or `--port=9000`) over environment variables over defaults. */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Config {
  const flags = parseFlags(argv);
  const config: Partial<Config> & { extra?: Record<string, string> } = {};
  for (const setting of SETTINGS) {
    const raw = flags.get(setting.flag) ?? env[setting.env];
    const value = raw !== undefined && raw !== '' ? setting.parse(raw) : setting.fallback(config);
    (config as Record<string, unknown>)[setting.key] = value;
  }
  config.extra = extraSettings(env);
  return Object.freeze(config as Config);
}

function parseFlags(argv: readonly string[]): Map<string, string> {
  const known = new Set(SETTINGS.map((s) => s.flag));
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    if (!known.has(flag)) throw new Error(`unknown option ${flag} (known: ${[...known].join(', ')})`);
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`option ${flag} needs a value`);
    flags.set(flag, value);
  }
  return flags;
}

/**
 * SOCIALGATE_* variables that belong to adapters and plugins, with the prefix removed. Which names
 * exist is known only to the modules that read them: the composition root checks them against the
 * settings table the feature modules declare (checkSettings), so a typo stops the start.
 */
function extraSettings(env: NodeJS.ProcessEnv): Record<string, string> {
  const extra: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith(PREFIX) && !CORE_ENV.has(name) && value !== undefined) extra[name.slice(PREFIX.length)] = value;
  }
  return extra;
}

/** A config for tests and embedding: defaults, in-memory store, quiet logs, with overrides. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  // A still sandbox world unless a test asks for a live one: tests assert what the world holds; no
  // account-safety budgets unless a test asks for a preset (the policy's own tests do).
  return Object.freeze({
    ...loadConfig([], {}),
    store: 'memory://',
    logLevel: 'silent' as const,
    policy: 'off',
    ...overrides,
    extra: { SANDBOX_LIVE_SECONDS: '0', ...(overrides.extra ?? {}) },
  });
}

/** The core settings' names as config.extra would hold them (SOCIALGATE_ removed): a module may not declare them again. */
export function coreSettingNames(): string[] {
  return SETTINGS.filter((s) => s.env.startsWith(PREFIX)).map((s) => s.env.slice(PREFIX.length));
}

/**
 * The start's check of config.extra against the settings table (engine/modules.ts merges the
 * modules' rows): a variable no row names, or a value its row's parser refuses, stops the start.
 */
export function checkSettings(extra: Readonly<Record<string, string>>, table: readonly SettingRow[]): void {
  checkExtraKeys(
    extra,
    table.map((row) => row.name),
  );
  for (const row of table) {
    const raw = extra[row.name];
    if (raw !== undefined && raw !== '') row.parse?.(raw);
  }
}

/** Refuses SOCIALGATE_* variables that no module reads: a misspelt setting must not pass silently. */
export function checkExtraKeys(extra: Readonly<Record<string, string>>, known: Iterable<string>): void {
  const names = new Set(known);
  const unknown = Object.keys(extra).filter((key) => !names.has(key));
  if (unknown.length) throw new Error(`unknown setting(s) ${unknown.map((key) => PREFIX + key).join(', ')}; see the README's configuration table`);
}

/** A whole number of milliseconds from a SOCIALGATE_* setting (config.extra), within bounds; a bad value stops the start by name. */
export function millisSetting(extra: Readonly<Record<string, string | undefined>>, key: string, fallback: number, min: number, max: number): number {
  const raw = extra[key];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`SOCIALGATE_${key} must be a whole number of milliseconds from ${min} to ${max}, got "${raw}"`);
  return value;
}
