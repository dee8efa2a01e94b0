// System routes: liveness, readiness, metrics, build and dependency metadata, the OpenAPI
// document and the explorer. They need no session and call no upstream method (/build and /deps
// may start the upstream's runtime, a sidecar, to learn the library version).
import { docsPage } from '../../engine/docs.js';
import { serviceError } from '../../engine/service-errors.js';
import type { Plugin, PluginInput, ReadyCheck, UpstreamAdapter, UpstreamLibrary } from '../../engine/types.js';

const plugin = (handle: (input: PluginInput) => Promise<unknown> | unknown): Plugin => ({ uses: [], handle: async (input) => handle(input) });

const DOCS = docsPage('socialgate');

/** The upstream's own account of its library, so the first /deps after a start already has the version. */
export const libraryOf = (upstream: UpstreamAdapter): Promise<UpstreamLibrary> => upstream.describe?.() ?? Promise.resolve(upstream.library);

/** /ready answers within this long whatever hangs: a check without an answer by then has failed. */
const READY_WITHIN_MS = 1500;

function bounded(check: Promise<ReadyCheck>): Promise<ReadyCheck> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<ReadyCheck>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${READY_WITHIN_MS} ms` }), READY_WITHIN_MS);
  });
  return Promise.race([check.catch((error: unknown) => ({ ok: false, detail: error instanceof Error ? error.message : String(error) })), late]).finally(() =>
    clearTimeout(timer),
  );
}

export const systemPlugins: Readonly<Record<string, Plugin>> = Object.freeze({
  'system.health': plugin(() => ({ status: 'ok' })),
  'system.ready': plugin(async ({ services }) => {
    const work = services.work?.store;
    const [store, upstream, background] = await Promise.all([
      bounded(services.store.ready()),
      bounded(services.upstream.ready()),
      work ? bounded(work.ready()) : undefined,
    ]);
    const checks = {
      store,
      upstream: { ...upstream, adapter: services.upstream.name },
      ...(background && work ? { work: { ...background, engine: services.work!.queue.engine } } : {}),
    };
    const failing = Object.entries(checks as Record<string, ReadyCheck>).filter(([, check]) => !check.ok);
    if (failing.length) {
      throw serviceError('NotReady', `Not ready: ${failing.map(([name, check]) => `${name} (${check.detail ?? 'failed'})`).join('; ')}`, { extra: { checks } });
    }
    return { status: 'ready', checks };
  }),
  'system.metrics': plugin(({ services }) => services.app.metricsText()),
  'system.build': plugin(async ({ services }) => {
    const library = await libraryOf(services.upstream);
    return {
      ...services.app.build,
      upstream_adapter: services.upstream.name,
      upstream_library: library.name,
      upstream_version: library.version,
      upstream_emulated: library.emulated === true,
    };
  }),
  'system.deps': plugin(async ({ services }) => {
    const library = await libraryOf(services.upstream);
    // An emulated library is not installed: naming it among the dependencies would claim it is.
    return library.emulated ? { ...services.app.deps } : { ...services.app.deps, [library.name]: library.version };
  }),
  'system.openapi': plugin(({ input, services }) => services.app.openapi(input.version === '3.0' ? '3.0' : '3.1')),
  'system.docs': plugin(() => DOCS),
});
