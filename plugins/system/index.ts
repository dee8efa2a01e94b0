// System routes: liveness, readiness, metrics, build and dependency metadata, the OpenAPI
// document and the explorer. They need no session and call no upstream method.
import { docsPage } from '../../engine/docs.js';
import { HttpError } from '../../engine/http-error.js';
import type { Plugin, PluginInput } from '../../engine/types.js';

const plugin = (handle: (input: PluginInput) => Promise<unknown> | unknown): Plugin => ({ uses: [], handle: async (input) => handle(input) });

const DOCS = docsPage('socialgate');

export const systemPlugins: Readonly<Record<string, Plugin>> = Object.freeze({
  'system.health': plugin(() => ({ status: 'ok' })),
  'system.ready': plugin(async ({ services }) => {
    const [store, upstream] = await Promise.all([services.store.ready(), services.upstream.ready()]);
    const checks = { store, upstream: { ...upstream, adapter: services.upstream.name } };
    const failing = Object.entries(checks).filter(([, check]) => !check.ok).map(([name]) => name);
    if (failing.length) {
      throw new HttpError(503, `Not ready: ${failing.map((name) => `${name} (${checks[name as keyof typeof checks].detail ?? 'failed'})`).join('; ')}`, { excType: 'NotReady', extra: { checks } });
    }
    return { status: 'ready', checks };
  }),
  'system.metrics': plugin(({ services }) => services.app.metricsText()),
  'system.build': plugin(({ services }) => ({ ...services.app.build, upstream_adapter: services.upstream.name, upstream_library: services.upstream.library.name, upstream_version: services.upstream.library.version })),
  'system.deps': plugin(({ services }) => ({ ...services.app.deps, [services.upstream.library.name]: services.upstream.library.version })),
  'system.openapi': plugin(({ services }) => services.app.openapi()),
  'system.docs': plugin(() => DOCS),
});
