// Sidecar adapters over the stand-in aiograpi package (test/fixtures/aiograpi), torn down with the test.
import type { Test } from 'tap';
import { createAiograpi, type AiograpiAdapter, type AiograpiOptions } from '../../adapters/upstream/aiograpi/index.js';
import { fromRoot } from './root.js';

export const FIXTURES = fromRoot('test', 'fixtures');

export function standInAdapter(t: Test, options: AiograpiOptions = {}): AiograpiAdapter {
  const adapter = createAiograpi({ pythonPath: [FIXTURES], restartDelayMs: 50, ...options });
  t.teardown(() => adapter.close());
  return adapter;
}

export const PASSWORD = 'demo-password';
export const CHALLENGE_CODE = '123456';
