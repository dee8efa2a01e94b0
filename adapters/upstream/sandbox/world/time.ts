// Generated runs of times (messages of a thread, comments under a post) step forward from a start by
// random amounts, so a long run could pass the world's now; the platform has nothing from the future.

/** Squeezes times at or after `from` so the latest is no later than `until`, keeping their order. */
export function fitBefore<T>(items: readonly T[], get: (item: T) => number, set: (item: T, at: number) => void, from: number, until: number): void {
  const latest = items.reduce((max, item) => Math.max(max, get(item)), -Infinity);
  if (latest <= until) return;
  const scale = (until - from) / (latest - from);
  for (const item of items) set(item, from + Math.floor((get(item) - from) * scale));
}
