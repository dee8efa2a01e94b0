#!/usr/bin/env node
// The CLI entry: runs the compiled TypeScript (npm run build writes dist/).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bin/cli.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('socialgate: not built yet; run `npm ci` (or `npm run build`) first\n');
  process.exit(1);
}
// A reader that stops early (`socialgate openapi | head`) closes the pipe: that is the reader's
// choice, not a failure, so end quietly instead of printing an EPIPE stack trace.
process.stdout.on('error', (error) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});
const { main } = await import(entry.href);
const code = await main(process.argv.slice(2));
// A failed command ends now: a store client that could not connect would keep retrying and the
// process alive (stdout and stderr are synchronous on pipes and files, nothing written is lost).
if (code !== 0) process.exit(code);
process.exitCode = code;
