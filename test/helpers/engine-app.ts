// An engine app over the fixture manifest (test/fixtures/engine-manifest plus the real error
// table) and a scripted upstream: tests one engine feature at a time, independent of the catalogue.
import { contentTypeFor } from '../../adapters/transfer/content-type.js';
import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, type App } from '../../engine/app.js';
import { testConfig } from '../../engine/config.js';
import { createLogger } from '../../engine/log.js';
import type { Config, FeatureModule, Plugin } from '../../engine/types.js';
import { createStore } from '../../adapters/store/keyv.js';
import { zipFiles } from '../../adapters/transfer/zip.js';
import { login } from '../../plugins/auth/login.js';
import { authModule } from '../../plugins/auth/module.js';
import { systemPlugins } from '../../plugins/system/index.js';
import { fakeUpstream, type FakeUpstream, type Handler } from './fake-upstream.js';
import { fromRoot } from './root.js';

export const FIXTURE_MANIFEST = fromRoot('test', 'fixtures', 'engine-manifest');
export const REAL_MANIFEST = fromRoot('manifest');

/** A temp folder holding the fixture files and the real error table. */
export function fixtureManifestDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sg-manifest-'));
  for (const name of readdirSync(FIXTURE_MANIFEST)) copyFileSync(join(FIXTURE_MANIFEST, name), join(dir, name));
  copyFileSync(join(REAL_MANIFEST, 'errors.yaml'), join(dir, 'errors.yaml'));
  return dir;
}

export const fixturePlugins: Record<string, Plugin> = { 'auth.login': login, 'system.health': systemPlugins['system.health'] };
/** The auth module with only the login the fixture routes: its start keeps the logins waiting at a challenge. */
export const fixtureModules: readonly FeatureModule[] = [{ ...authModule, plugins: { 'auth.login': login } }];

export async function engineApp(handlers: Record<string, Handler> = {}, config: Partial<Config> = {}): Promise<{ app: App; upstream: FakeUpstream }> {
  const upstream = fakeUpstream(handlers);
  const cfg = testConfig(config);
  const app = createApp({
    config: cfg,
    upstream,
    store: await createStore('memory://'),
    plugins: fixturePlugins,
    modules: fixtureModules,
    log: createLogger('silent'),
    zip: zipFiles,
    contentType: contentTypeFor,
    manifestDir: fixtureManifestDir(),
  });
  return { app, upstream };
}
