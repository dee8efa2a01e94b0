#!/usr/bin/env node
// Run by `npm run build` (and so by `npm ci`): the operator console into dist/console: its own
// files from console/ and the ES module builds of preact, its hooks and htm from node_modules
// (about 17 KB, no bundler, no CDN: the page's import map names these files).
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const out = 'dist/console';
const VENDOR = {
  'preact.mjs': 'preact/dist/preact.mjs',
  'hooks.mjs': 'preact/hooks/dist/hooks.mjs',
  'htm.mjs': 'htm/dist/htm.mjs',
  'htm-preact.mjs': 'htm/preact/index.mjs',
};

rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'vendor'), { recursive: true });
for (const name of readdirSync('console')) copyFileSync(join('console', name), join(out, name));
for (const [name, file] of Object.entries(VENDOR)) copyFileSync(packageFile(file), join(out, 'vendor', name));

/** A file inside an installed package: its folder is found from its main entry (exports maps hide package.json). */
function packageFile(path) {
  const [pkg, ...inner] = path.split('/');
  let dir = dirname(require.resolve(pkg));
  while (!(existsSync(join(dir, 'package.json')) && basename(dir) === pkg)) {
    if (dir === dirname(dir)) throw new Error(`build-console: cannot find the ${pkg} package`);
    dir = dirname(dir);
  }
  return join(dir, ...inner);
}
