// logging/setLevel over a stateless endpoint: each HTTP request gets a fresh server, so the level a
// client chose is remembered here, by who it is (API key name and session), for the calls that
// follow. A 2026-07-28 client sends its level with each request instead, which wins. A client that
// never chose a level gets no log messages: its answers stay plain JSON, not event streams.
import type { LoggingLevel } from '@modelcontextprotocol/server';
import type { Caller } from './call.js';

const ORDER: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
/** Callers remembered at once; the oldest is forgotten first (it falls back to the default). */
const REMEMBERED = 10_000;

export class LogLevels {
  private readonly chosen = new Map<string, LoggingLevel>();

  set(caller: Caller, level: LoggingLevel): void {
    const key = keyOf(caller);
    this.chosen.delete(key);
    this.chosen.set(key, level);
    if (this.chosen.size > REMEMBERED) this.chosen.delete(this.chosen.keys().next().value!);
  }

  /** Whether a message at `level` reaches this caller. */
  allows(caller: Caller, level: LoggingLevel): boolean {
    const floor = caller.logLevel ?? this.chosen.get(keyOf(caller));
    return floor !== undefined && ORDER.indexOf(level) >= ORDER.indexOf(floor);
  }
}

const keyOf = (caller: Caller): string => `${caller.keyName}\n${caller.sessionId ?? ''}`;
