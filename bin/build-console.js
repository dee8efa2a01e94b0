#!/usr/bin/env node
// Run by `npm run build` (and so by `npm ci`): the operator console into dist/console: its own
// files from console/ and the ES module builds of preact, its hooks and htm from node_modules
// (about 17 KB, no bundler, no CDN: the page's import map names these files), and the page with
// its content security policy.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
for (const name of readdirSync('console')) if (name !== 'index.html') copyFileSync(join('console', name), join(out, name));
writeFileSync(join(out, 'index.html'), withPolicy(readFileSync('console/index.html', 'utf8')));
for (const [name, file] of Object.entries(VENDOR)) copyFileSync(packageFile(file), join(out, 'vendor', name));

/**
 * The page's content security policy allows scripts from the service only, and the one inline
 * script, the import map, by its hash: nothing else runs, and nothing loads from off the machine.
 */
function withPolicy(page) {
  const map = /<script type="importmap">([\s\S]*?)<\/script>/.exec(page);
  if (!map) throw new Error('build-console: console/index.html has no import map');
  return page.replace('IMPORTMAP_HASH', `sha256-${createHash('sha256').update(map[1]).digest('base64')}`);
}

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
