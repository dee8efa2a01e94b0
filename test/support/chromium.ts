// Debian's chromium for the browser tests (/docs, /console), installed by chromium.sh when missing. Returns the
// reason when it cannot be installed, so the test skips saying why instead of passing silently.
import { spawnSync } from 'node:child_process';
import { fromRoot } from '../helpers/root.js';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export function ensureChromium(): { ok: true } | { missing: string } {
  const script = fromRoot('test', 'support', 'chromium.sh');
  const result = spawnSync('sh', [script], { encoding: 'utf8', timeout: 600_000 });
  if (result.status === 0) return { ok: true };
  return {
    missing:
      `chromium is missing and test/support/chromium.sh could not install it with apt-get (exit ${result.status}): ` +
      `${(result.stderr || result.stdout || '').trim().slice(-300)}`,
  };
}
