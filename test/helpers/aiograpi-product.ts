// The whole product, configured for aiograpi, served over a given upstream (the stand-in sidecar,
// or a probe around it): the set-up of the aiograpi tests that go through HTTP.
import type { Test } from 'tap';
import { createStore } from '../../adapters/store/keyv.js';
import { productParts } from '../../bin/compose.js';
import { createApp } from '../../engine/app.js';
import { testConfig } from '../../engine/config.js';
import { createLogger } from '../../engine/log.js';
import type { UpstreamAdapter } from '../../engine/types.js';
import { serve, type Client } from './http.js';

/** The whole product (configured for aiograpi) over the given upstream, on a free port closed with the test. */
export async function servedOnAiograpi(t: Test, upstream: UpstreamAdapter): Promise<Client> {
  const config = testConfig({ upstream: 'aiograpi' });
  const app = createApp({
    config,
    upstream,
    store: await createStore('memory://'),
    ...productParts(config),
    log: createLogger('silent'),
    deps: { node: process.versions.node },
  });
  const http = await serve(app);
  t.teardown(() => http.close());
  return http;
}
