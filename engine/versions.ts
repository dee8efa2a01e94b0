// Dotted version numbers ("1.0.9", "1.12.13"), compared part by part as numbers.

export const VERSION = /^\d+(\.\d+)*$/;

/** Negative when a is older than b, 0 when equal, positive when newer (missing parts count as 0). */
export function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0);
  return 0;
}
