// GET /console/health: the last hour by route family from the service's own metrics, and the
// upstream as it describes itself (adapter, library and version, and whether it is ready: for
// aiograpi, that its sidecars start and import the library).
import type { Services } from '../../engine/types.js';
import type { RecentFigures } from '../../engine/recent.js';
import { libraryOf } from '../system/index.js';

export interface ConsoleHealth extends RecentFigures {
  readonly upstream: { adapter: string; library: string; version: string; emulated: boolean; ready: boolean; detail?: string };
}

export async function healthOf(services: Services): Promise<ConsoleHealth> {
  const { upstream } = services;
  const [library, ready] = await Promise.all([
    libraryOf(upstream),
    upstream.ready().catch((error: unknown) => ({ ok: false, detail: error instanceof Error ? error.name : 'failed' })),
  ]);
  return {
    ...services.app.recent(),
    upstream: {
      adapter: upstream.name,
      library: library.name,
      version: library.version,
      emulated: library.emulated === true,
      ready: ready.ok,
      ...(ready.detail ? { detail: ready.detail } : {}),
    },
  };
}
