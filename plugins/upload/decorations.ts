// Story decorations: mentions, locations and hashtags sent without a position are centred before
// the upstream call (the upstream would otherwise send nulls the platform rejects).
import type { InputBag, RouteSpec } from '../../engine/types.js';

export const CENTRED = Object.freeze({ x: 0.5, y: 0.5, width: 0.5, height: 0.2, rotation: 0.0 });
const POSITIONED = ['mentions', 'locations', 'hashtags'] as const;

/** A copy of the bag with every missing (or null) position field of those decorations filled in. */
export function centreDecorations(route: RouteSpec, bag: InputBag): InputBag {
  const out: InputBag = { ...bag };
  for (const name of POSITIONED) {
    const value = bag[name];
    if (!Array.isArray(value) || !route.params.some((p) => p.name === name && p.type === 'json')) continue;
    out[name] = value.map(centred);
  }
  return out;
}

function centred(item: unknown): unknown {
  if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
  const given = item as Record<string, unknown>;
  const filled: Record<string, unknown> = { ...given };
  for (const [key, value] of Object.entries(CENTRED)) {
    if (given[key] === undefined || given[key] === null) filled[key] = value;
  }
  return filled;
}
