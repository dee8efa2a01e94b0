// One store call given up after the store timeout: the caller gets StoreUnavailable (503 with
// Retry-After) at once, whatever the server does (frozen, stopped, unreachable). Shared by the
// session store and the background layer's work store and queue. Only the error's class or code is
// told: a driver's message may name a host or a user.
import { serviceError } from '../../engine/service-errors.js';
import type { HttpError } from '../../engine/http-error.js';
import type { Logger } from '../../engine/types.js';

/** What a caller is told to wait after a store outage answer. */
export const RETRY_AFTER_SECONDS = 2;

export function storeDown(detail: string): HttpError {
  return serviceError('StoreUnavailable', detail, { retryAfter: RETRY_AFTER_SECONDS });
}

/** The session store or the work store is away (StoreUnavailable): no fault of the work that met it. */
export function isStoreDown(error: unknown): boolean {
  return (error as { excType?: string } | undefined)?.excType === 'StoreUnavailable';
}

/** `call` within `ms`, else StoreUnavailable; its own failure becomes StoreUnavailable too, naming the store and the call. */
export function withinStoreTime<T>(store: string, what: string, ms: number, call: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(storeDown(`the ${store} did not answer a ${what} within ${ms} ms`)), ms);
  });
  const failed = call.catch((error: unknown) => {
    if (isStoreDown(error)) throw error;
    throw storeDown(`the ${store} failed a ${what}: ${error instanceof Error ? ((error as { code?: string }).code ?? error.name) : 'error'}`);
  });
  return Promise.race([failed, late]).finally(() => clearTimeout(timer));
}

/**
 * Connection errors of a store's clients as one JSON line each, at most one a `everyMs` per store
 * and error code, with how many were left out since: an outage writes a few lines, not hundreds.
 */
export function outageReporter(log: Logger, store: string, everyMs = 10_000): (error: unknown) => void {
  const last = new Map<string, { at: number; left: number }>();
  return (error) => {
    const code = error instanceof Error ? ((error as { code?: string }).code ?? error.name) : 'error';
    const seen = last.get(code);
    const now = Date.now();
    if (seen && now - seen.at < everyMs) {
      seen.left++;
      return;
    }
    last.set(code, { at: now, left: 0 });
    log.warn('store connection error', { store, error: code, ...(seen?.left ? { left_out: seen.left } : {}) });
  };
}
