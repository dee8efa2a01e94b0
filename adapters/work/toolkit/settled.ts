// A bounded wait for work being shut down: closes, disconnects, give-backs. Whatever settles within
// the bound is waited for, failures included; what does not is left to finish on its own, so a
// dependency that hangs never holds a close.

/** Resolves once every promise has settled, or after `ms`, whichever comes first; never rejects. */
export async function settledWithin(work: readonly Promise<unknown>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([Promise.allSettled(work), late]).finally(() => clearTimeout(timer));
}
