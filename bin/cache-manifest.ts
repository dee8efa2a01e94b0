// Run by `npm run build` after tsc: what depends only on the product manifest, done once. The
// manifest is parsed and checked (dist/manifest.cache.json) and every route's validator compiled
// to code (dist/validators.cjs); a boot uses each while the bytes it was made from are unchanged.
import { writeFileSync } from 'node:fs';
import { testConfig } from '../engine/config.js';
import { cacheManifest } from '../engine/manifest/read.js';
import { defaultManifestDir, loadManifest } from '../engine/manifest/load.js';
import { precompiledPath, precompiledSource } from '../engine/validate.js';
import { productRegistries } from './compose.js';

const files = cacheManifest(defaultManifestDir());
const manifest = loadManifest(defaultManifestDir(), productRegistries(testConfig()));
writeFileSync(precompiledPath(), precompiledSource(manifest));
process.stdout.write(`build cache: ${files} manifest files checked, ${manifest.routes.length} validators compiled\n`);
