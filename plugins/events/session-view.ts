// The watcher's panel of a console session row: whether the session is watched, from where, how
// often, paused or not, its last check and what it emitted. Read from the watchers' states in the work
// store: the one place that says whether a session is watched.
import { sessionRef } from '../../adapters/events/ids.js';
import type { JsonValue, SessionView } from '../../engine/types.js';
import type { EventsParts } from './index.js';
import type { WatchState } from './watch.js';

export type ConsoleWatch = {
  readonly source: string;
  readonly interval_seconds: number;
  readonly paused: string | null;
  readonly last_check_at: string | null;
  readonly emitted: number;
};

export const watchView: SessionView<EventsParts | undefined> = {
  name: 'watch',
  empty: null,
  async read(parts, records) {
    if (!parts) return new Map();
    const byRef = new Map((await parts.watchers.all()).map((state) => [state.ref, state]));
    const shown = new Map<string, JsonValue>();
    for (const record of records) {
      const state = byRef.get(sessionRef(record.id));
      if (state) shown.set(record.id, watchOf(state));
    }
    return shown;
  },
};

function watchOf(state: WatchState): ConsoleWatch {
  return {
    source: state.source,
    interval_seconds: state.interval_ms / 1000,
    paused: state.paused?.reason ?? null,
    last_check_at: state.last_check_at ? new Date(state.last_check_at).toISOString() : null,
    emitted: state.emitted,
  };
}
