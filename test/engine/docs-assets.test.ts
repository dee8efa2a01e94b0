// Swagger UI's assets: text assets travel compressed as the client accepts, every asset is cached a
// day and revalidated by ETag. Read over raw HTTP, because fetch would decompress behind our back.
import t from 'tap';
import { get } from 'node:http';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { composeApp } from '../../bin/compose.js';
import { testConfig } from '../../engine/config.js';
import { serve } from '../helpers/http.js';

const client = await serve(await composeApp(testConfig()));
t.teardown(() => client.close());
const dir = (createRequire(import.meta.url)('swagger-ui-dist/absolute-path.js') as () => string)();

function raw(
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    get(new URL(path, client.url), { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}

const decoders = { br: brotliDecompressSync, gzip: gunzipSync, identity: (body: Buffer) => body };

for (const name of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
  t.test(`${name} is compressed as accepted and revalidated by ETag`, async (t) => {
    const file = readFileSync(join(dir, name));
    for (const [accept, encoding] of [
      ['br, gzip', 'br'],
      ['gzip', 'gzip'],
      ['identity', 'identity'],
    ] as const) {
      const reply = await raw(`/docs/assets/${name}`, { 'accept-encoding': accept });
      t.equal(reply.status, 200);
      t.equal(reply.headers['content-encoding'] ?? 'identity', encoding, `Accept-Encoding: ${accept}`);
      t.ok(decoders[encoding](reply.body).equals(file), 'the file as packaged');
      if (encoding !== 'identity') t.ok(reply.body.length < file.length / 3, `${reply.body.length} bytes for ${file.length}`);
      t.match(reply.headers['cache-control'], /max-age=\d+/);
      t.match(reply.headers.vary, /Accept-Encoding/i);
    }
    const first = await raw(`/docs/assets/${name}`, { 'accept-encoding': 'br' });
    const again = await raw(`/docs/assets/${name}`, { 'accept-encoding': 'br', 'if-none-match': String(first.headers.etag) });
    t.equal(again.status, 304, 'unchanged: no body again');
    t.equal(again.body.length, 0);
  });
}

t.test('an image is sent as it is', async (t) => {
  const reply = await raw('/docs/assets/favicon-32x32.png', { 'accept-encoding': 'br, gzip' });
  t.equal(reply.status, 200);
  t.equal(reply.headers['content-encoding'], undefined);
  t.ok(reply.body.equals(readFileSync(join(dir, 'favicon-32x32.png'))));
});

t.test('/openapi.json is compressed as accepted and revalidated by ETag', async (t) => {
  const plain = await raw('/openapi.json', { 'accept-encoding': 'identity' });
  t.equal(plain.headers['content-encoding'], undefined);
  for (const encoding of ['br', 'gzip'] as const) {
    const reply = await raw('/openapi.json', { 'accept-encoding': encoding });
    t.equal(reply.headers['content-encoding'], encoding);
    t.ok(decoders[encoding](reply.body).equals(plain.body), `${encoding}: the same document`);
  }
  const again = await raw('/openapi.json', { 'if-none-match': String(plain.headers.etag) });
  t.equal(again.status, 304);
});
