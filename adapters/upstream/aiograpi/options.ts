// Settings of the aiograpi adapter: which interpreter runs the sidecar, how many sidecars, how long
// a call may take. Read from config.extra (SOCIALGATE_* variables with the prefix removed).
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../../engine/types.js';

export interface AiograpiOptions {
  /** Python interpreter (3.10 or later) with aiograpi installed. Default `python3`. */
  readonly python?: string;
  /** Number of sidecar processes; sessions are spread over them by a stable hash. Default 1. */
  readonly processes?: number;
  /** Time limit of one upstream call, in ms. Default 60000. */
  readonly timeoutMs?: number;
  /** Extra module folders put in front of PYTHONPATH (a virtualenv's site-packages, a test stand-in). */
  readonly pythonPath?: readonly string[];
  /** Time limit of a sidecar's start (interpreter up, aiograpi imported). Default: the larger of timeoutMs and 30 s. */
  readonly startTimeoutMs?: number;
  /** Python logging level of the sidecar (its log goes to stderr, forwarded to the service log). */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARNING' | 'ERROR';
  /** Back-off before restarting a sidecar that died: doubles per quick death, up to the maximum. */
  readonly restartDelayMs?: number;
  readonly maxRestartDelayMs?: number;
  /** The sidecar script; found beside this module (or in the source tree when running from dist/). */
  readonly sidecarPath?: string;
  readonly log?: Logger;
}

export interface ResolvedOptions {
  readonly python: string;
  readonly processes: number;
  readonly timeoutMs: number;
  readonly startTimeoutMs: number;
  readonly pythonPath: readonly string[];
  readonly logLevel: string;
  readonly restartDelayMs: number;
  readonly maxRestartDelayMs: number;
  readonly sidecarPath: string;
  readonly log?: Logger;
}

const LOG_LEVELS = ['DEBUG', 'INFO', 'WARNING', 'ERROR'] as const;

/** Reads PYTHON, SIDECAR_PROCESSES, SIDECAR_TIMEOUT_MS, PYTHONPATH and SIDECAR_LOG_LEVEL. */
export function aiograpiOptionsFromEnv(extra: Readonly<Record<string, string>>): AiograpiOptions {
  const options: { -readonly [K in keyof AiograpiOptions]: AiograpiOptions[K] } = {};
  if (extra.PYTHON !== undefined) options.python = nonEmpty('SOCIALGATE_PYTHON', extra.PYTHON);
  if (extra.SIDECAR_PROCESSES !== undefined) options.processes = integer('SOCIALGATE_SIDECAR_PROCESSES', extra.SIDECAR_PROCESSES, 1, 64);
  if (extra.SIDECAR_TIMEOUT_MS !== undefined) options.timeoutMs = integer('SOCIALGATE_SIDECAR_TIMEOUT_MS', extra.SIDECAR_TIMEOUT_MS, 1, 3_600_000);
  if (extra.PYTHONPATH !== undefined) options.pythonPath = extra.PYTHONPATH.split(delimiter).filter(Boolean);
  if (extra.SIDECAR_LOG_LEVEL !== undefined) options.logLevel = logLevel(extra.SIDECAR_LOG_LEVEL);
  return options;
}

export function resolveOptions(options: AiograpiOptions): ResolvedOptions {
  const timeoutMs = integer('timeoutMs', String(options.timeoutMs ?? 60_000), 1, 3_600_000);
  const resolved = {
    python: nonEmpty('python', options.python ?? 'python3'),
    processes: integer('processes', String(options.processes ?? 1), 1, 64),
    timeoutMs,
    startTimeoutMs: integer('startTimeoutMs', String(options.startTimeoutMs ?? Math.max(timeoutMs, 30_000)), 1, 3_600_000),
    pythonPath: options.pythonPath ?? [],
    logLevel: options.logLevel ?? 'WARNING',
    restartDelayMs: integer('restartDelayMs', String(options.restartDelayMs ?? 200), 0, 600_000),
    maxRestartDelayMs: integer('maxRestartDelayMs', String(options.maxRestartDelayMs ?? 10_000), 0, 3_600_000),
    sidecarPath: options.sidecarPath ?? findSidecar(),
    log: options.log,
  };
  return resolved;
}

function nonEmpty(name: string, value: string): string {
  if (!value.trim()) throw new Error(`${name} must not be empty`);
  return value.trim();
}

function integer(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

function logLevel(raw: string): AiograpiOptions['logLevel'] {
  const level = raw.trim().toUpperCase();
  const found = LOG_LEVELS.find((l) => l === level);
  if (!found) throw new Error(`SOCIALGATE_SIDECAR_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${raw}")`);
  return found;
}

/** sidecar.py sits beside this module in the source tree; tsc does not copy it to dist/. */
function findSidecar(): string {
  return findAdapterFile('sidecar.py', 'set sidecarPath');
}

/** The method list of the spec's aiograpi (1.0.9) that ships with the package, for an audit without the library. */
export const SHIPPED_METHODS_VERSION = '1.0.9';
export function shippedMethodsPath(): string {
  return findAdapterFile(`methods-${SHIPPED_METHODS_VERSION}.json`, 'the package is incomplete');
}

/** A file of this folder, from the source tree or from dist/ (which holds only the compiled .js). */
function findAdapterFile(name: string, remedy: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  const beside = join(dir, name);
  if (existsSync(beside)) return beside;
  for (;;) {
    const candidate = join(dir, 'adapters', 'upstream', 'aiograpi', name);
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`aiograpi adapter: cannot find ${name} (${remedy})`);
    dir = parent;
  }
}
