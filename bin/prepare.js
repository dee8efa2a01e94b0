#!/usr/bin/env node
// npm's `prepare` script (run by `npm ci` and `npm install` in a clone). A full install builds dist/.
// An install without dev dependencies (`npm ci --omit=dev`) has no TypeScript to build with: it keeps
// a dist/ that is already there (built before, or shipped), and otherwise stops saying how to
// install for production, instead of npm's bare `tsc: not found`.
import { execSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const built = 'dist/bin/cli.js';

function hasTypeScript() {
  try {
    createRequire(`${process.cwd()}/package.json`).resolve('typescript');
    return true;
  } catch {
    return false;
  }
}

if (hasTypeScript()) {
  execSync('npm run build', { stdio: 'inherit' });
} else if (existsSync(built)) {
  const info = 'dist/build-info.json';
  const time = existsSync(info) ? JSON.parse(readFileSync(info, 'utf8')).build_time : 'an unknown time';
  process.stderr.write(`socialgate: dev dependencies omitted; keeping dist/ as built at ${time} (rebuild with a full install after changing the sources)\n`);
} else {
  process.stderr.write(
    'socialgate: `npm ci --omit=dev` cannot build (TypeScript is a dev dependency) and dist/ is not built yet.\n' +
      'Install for production with:  npm ci && npm prune --omit=dev\n' +
      '(the first builds dist/ with the dev dependencies, the second removes them; see the README, Production install)\n',
  );
  process.exit(1);
}
