// An engine app over the fixture manifest (test/fixtures/engine-manifest plus the real error
// table) and a scripted upstream: tests one engine feature at a time, independent of the catalogue.
import { contentTypeFor } from '../../adapters/transfer/content-type.js';
import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../../engine/app.js';
import { testConfig } from '../../engine/config.js';
import { createLogger } from '../../engine/log.js';
import type { Config, Plugin } from '../../engine/types.js';
import { createStore } from '../../adapters/store/keyv.js';
import { zipFiles } from '../../adapters/transfer/zip.js';
import { login } from '../../plugins/auth/login.js';
import { systemPlugins } from '../../plugins/system/index.js';
import { fakeUpstream, type FakeUpstream, type Handler } from './fake-upstream.js';
import { fromRoot } from './root.js';

const here = fromRoot('test', 'helpers');
export const FIXTURE_MANIFEST = join(here, '..', 'fixtures', 'engine-manifest');
export const REAL_MANIFEST = join(here, '..', '..', 'manifest');

/** A temp folder holding the fixture files and the real error table. */
export function fixtureManifestDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sg-manifest-'));
  for (const name of readdirSync(FIXTURE_MANIFEST)) copyFileSync(join(FIXTURE_MANIFEST, name), join(dir, name));
  copyFileSync(join(REAL_MANIFEST, 'errors.yaml'), join(dir, 'errors.yaml'));
  return dir;
}

export const fixturePlugins: Record<string, Plugin> = { 'auth.login': login, 'system.health': systemPlugins['system.health'] };

export async function engineApp(handlers: Record<string, Handler> = {}, config: Partial<Config> = {}): Promise<{ app: App; upstream: FakeUpstream }> {
  const upstream = fakeUpstream(handlers);
  const cfg = testConfig(config);
  const app = createApp({
    config: cfg,
    upstream,
    store: await createStore('memory://'),
    plugins: fixturePlugins,
    log: createLogger('silent'),
    zip: zipFiles,
    contentType: contentTypeFor,
    manifestDir: fixtureManifestDir(),
  });
  return { app, upstream };
}
