// The browser tests' common start: chromium installed when missing, else one skipped test that
// says why (never a silent pass). Apart from chromium.ts, which tap's `before` script loads
// without tap.
import t from 'tap';
import { ensureChromium } from './chromium.js';

export { CHROMIUM, CHROMIUM_FLAGS } from './chromium.js';

export async function withChromium(what: string, run: () => Promise<void>): Promise<void> {
  const installed = ensureChromium();
  if ('missing' in installed) t.test(what, { skip: `${what}: ${installed.missing}` }, () => {});
  else await run();
}
