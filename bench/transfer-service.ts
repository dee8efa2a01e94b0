// The service the transfer bench measures: the whole manifest over the sandbox, with limits
// raised for 200 MB files, loopback allow-listed for the by/url case, and one upstream quirk:
// video_download writes a file of the bench's size (extended in place, so writing it costs the
// service nothing; the real upstream writes downloads in its own process).
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { parse } from 'yaml';
import { createApp } from '../engine/app.js';
import { testConfig } from '../engine/config.js';
import { createLogger } from '../engine/log.js';
import { defaultManifestDir } from '../engine/manifest/load.js';
import type { Plugin, UpstreamAdapter } from '../engine/types.js';
import { createStore } from '../adapters/store/keyv.js';
import { zipFiles } from '../adapters/transfer/zip.js';
import { createSandbox } from '../adapters/upstream/sandbox/index.js';
import { plugins } from '../plugins/index.js';
import { uploadPlugins } from '../plugins/upload/index.js';

export async function startService(bytes: number, grow: (path: string) => Promise<void>): Promise<{ port: number; session: string; videoPk: string }> {
  const mb = String(Math.ceil(bytes / (1024 * 1024)) + 16);
  const config = testConfig({ extra: { UPLOAD_MAX_MB: mb, UPLOAD_MAX_VIDEO_MB: mb, FETCH_MAX_MB: mb, FETCH_ALLOW: '127.0.0.1' } });
  const sandbox = createSandbox();
  const app = createApp({ config, upstream: growingDownloads(sandbox, grow), store: await createStore('memory://'), plugins: everyPlugin(), log: createLogger('silent'), zip: zipFiles });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const login = await fetch(`http://127.0.0.1:${port}/auth/login`, { method: 'POST', body: new URLSearchParams({ username: 'demo', password: 'demo-password' }) });
  const session = (await login.json()) as string;
  const video = [...sandbox.world.media.values()].find((m) => m.kind === 'video' || m.kind === 'clip');
  if (!video) throw new Error('the sandbox world has no video');
  return { port, session, videoPk: video.pk };
}

function growingDownloads(inner: UpstreamAdapter, grow: (path: string) => Promise<void>): UpstreamAdapter {
  return {
    ...inner,
    name: inner.name,
    library: inner.library,
    ready: () => inner.ready(),
    close: () => inner.close(),
    async open(options) {
      const client = await inner.open(options);
      return {
        exportSettings: () => client.exportSettings(),
        close: () => client.close(),
        async call(method, kwargs, opts) {
          const result = await client.call(method, kwargs, opts);
          if (method === 'video_download' && typeof result === 'string') await grow(result);
          return result;
        },
      };
    },
  };
}

/** Every plugin; names the manifest uses that are not written yet get a stub so the app boots. */
function everyPlugin(): Record<string, Plugin> {
  const all: Record<string, Plugin> = { ...plugins, ...uploadPlugins };
  const dir = defaultManifestDir();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    const doc = parse(readFileSync(join(dir, file), 'utf8')) as { routes?: { plugin?: string }[] };
    for (const route of doc.routes ?? []) {
      if (route.plugin && !all[route.plugin]) all[route.plugin] = { uses: [], handle: async () => { throw new Error(`${route.plugin} is not available`); } };
    }
  }
  return all;
}
