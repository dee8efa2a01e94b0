// Typed bridges between tap's assertion signatures and this suite's error patterns.
import type { Test } from 'tap';

/** The `wanted` argument of t.throws and t.rejects (tap's ErrorMatch). */
export type ErrorMatch = Exclude<Parameters<Test['throws']>[1], string | undefined>;

/**
 * An error pattern on this project's own error fields (excType, status, retryAfter, ...), for
 * t.throws and t.rejects. At run time tap matches the error against any object with t.match, but
 * its ErrorMatch type only admits objects that have a message, name, code, cause or errors key.
 * The pattern is passed through unchanged: this only gives it the type tap's signature asks for.
 */
export function errorWith(pattern: Readonly<Record<string, unknown>>): ErrorMatch {
  return pattern as ErrorMatch;
}
