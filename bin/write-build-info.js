#!/usr/bin/env node
// Run by `npm run build`: records the commit and the build time for GET /build.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';

let sha = 'unknown';
try {
  sha = execFileSync('git', ['rev-parse', 'HEAD'], { stdio: ['ignore', 'pipe', 'ignore'] })
    .toString()
    .trim();
} catch {
  // not a git checkout (an npm pack, a container build): say so rather than guess
}
mkdirSync('dist', { recursive: true });
writeFileSync('dist/build-info.json', JSON.stringify({ git_sha: sha, build_time: new Date().toISOString() }) + '\n');
