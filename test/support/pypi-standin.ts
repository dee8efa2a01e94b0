// A package index on loopback serving the stand-in aiograpi (test/fixtures/aiograpi, with the stand-in
// httpx it imports) as one wheel named aiograpi 1.0.9, for building the image's aiograpi target where PyPI cannot be reached: the build
// runs the same `pip install aiograpi==1.0.9`, only from this index (PIP_INDEX_URL).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { tempFolder } from './process.js';
import { fromRoot } from '../helpers/root.js';

const WHEEL = 'aiograpi-1.0.9-py3-none-any.whl';

// A wheel is a zip of the package and its dist-info; pip needs no build tool for it.
const MAKE_WHEEL = `
import os, sys, zipfile
fixtures, out = sys.argv[1], sys.argv[2]
info = 'aiograpi-1.0.9.dist-info/'
with zipfile.ZipFile(out, 'w') as z:
    for package in ('aiograpi', 'httpx'):
        for root, dirs, files in os.walk(os.path.join(fixtures, package)):
            dirs[:] = [d for d in dirs if d != '__pycache__']
            for name in files:
                if name.endswith('.py'):
                    path = os.path.join(root, name)
                    z.write(path, os.path.relpath(path, fixtures))
    z.writestr(info + 'METADATA', 'Metadata-Version: 2.1\\nName: aiograpi\\nVersion: 1.0.9\\n')
    z.writestr(info + 'WHEEL', 'Wheel-Version: 1.0\\nGenerator: socialgate-test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')
    z.writestr(info + 'RECORD', '')
`;

export interface Index {
  /** The index's simple API root, for PIP_INDEX_URL. */
  readonly url: string;
  close(): Promise<void>;
}

export async function serveStandinIndex(): Promise<Index> {
  const source = fromRoot('test', 'fixtures');
  const wheel = join(tempFolder('socialgate-wheel-'), WHEEL);
  const made = spawnSync('python3', ['-c', MAKE_WHEEL, source, wheel], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`the stand-in wheel could not be made: ${made.stderr}`);
  const bytes = readFileSync(wheel);
  const server = createServer((request, response) => {
    if (request.url === `/packages/${WHEEL}`) return void response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bytes);
    if (request.url?.replace(/\/?$/, '/') === '/simple/aiograpi/') {
      return void response.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><a href="/packages/${WHEEL}">${WHEEL}</a></body></html>`);
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/simple`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
