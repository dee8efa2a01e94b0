// Boot time of the manifest: load (read, parse, check, normalise, freeze), then the whole app
// (validators compiled, OpenAPI built, router registered). Median of repeated in-process boots.
import { createApp } from '../engine/app.js';
import { testConfig } from '../engine/config.js';
import { createLogger } from '../engine/log.js';
import { defaultManifestDir, loadManifest } from '../engine/manifest/load.js';
import { createStore } from '../adapters/store/keyv.js';
import { createSandbox } from '../adapters/upstream/sandbox/index.js';
import { productParts, productRegistries } from '../bin/compose.js';
import { precompiledRoutes } from '../engine/validate.js';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const time = (fn: () => unknown) => {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

export async function benchBoot(runs = 15): Promise<Record<string, number>> {
  const dir = defaultManifestDir();
  const load: number[] = [];
  const app: number[] = [];
  let routes = 0;
  const upstream = createSandbox();
  const store = await createStore('memory://');
  const config = testConfig();
  for (let i = 0; i < runs; i++) {
    load.push(time(() => (routes = loadManifest(dir, productRegistries(config)).routes.length)));
    app.push(time(() => createApp({ config, upstream, store, log: createLogger('silent'), ...productParts(config) })));
  }
  const sandbox = time(() => createSandbox({ seed: 7 }));
  // Built by `npm run build`: a figure with fewer than every route means the boot compiled the rest.
  const precompiled = precompiledRoutes(loadManifest(dir, productRegistries(config))).length;
  return {
    routes,
    precompiled_validators: precompiled,
    manifest_load_ms: round(median(load)),
    app_boot_ms: round(median(app)),
    first_manifest_load_ms: round(load[0]),
    sandbox_world_ms: round(sandbox),
  };
}

const round = (n: number) => Math.round(n * 10) / 10;
