// JSON-lines logs on stderr. Callers pass fields explicitly; request bodies, headers and session
// records are never logged, so secrets cannot leak through here.
import type { Config, Logger } from './types.js';

const LEVELS = { silent: 0, error: 1, warn: 2, info: 3 } as const;

export function createLogger(level: Config['logLevel'], write: (line: string) => void = (line) => process.stderr.write(line + '\n')): Logger {
  const threshold = LEVELS[level];
  const emit = (name: keyof typeof LEVELS, msg: string, fields?: Record<string, unknown>) => {
    if (LEVELS[name] <= threshold) write(JSON.stringify({ time: new Date().toISOString(), level: name, msg, ...fields }));
  };
  return {
    info: (msg, fields) => emit('info', msg, fields),
    warn: (msg, fields) => emit('warn', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
  };
}

/**
 * What an unexpected error logs: its class and where it was thrown. Never the message: messages
 * repeat what they were given (a password, a cookie, a session id), and the logs must hold none.
 */
export function stackWithoutMessage(error: unknown): string {
  if (!(error instanceof Error)) return typeof error;
  const frames = (error.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line));
  return [error.name, ...frames].join('\n');
}

/** An error's class and message, for failures whose message is the service's own or a driver's about its server. */
export const errorName = (error: unknown): string => (error instanceof Error ? error.name + ': ' + error.message : 'unknown error');

/** An error's code or class only, where its message might name a host, a user or a value. */
export const errorCode = (error: unknown): string => (error instanceof Error ? ((error as { code?: string }).code ?? error.name) : 'unknown error');
