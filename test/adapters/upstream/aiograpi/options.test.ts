// The adapter's settings from SOCIALGATE_* variables (config.extra, prefix removed).
import t from 'tap';
import { aiograpiOptionsFromEnv, createAiograpi } from '../../../../adapters/upstream/aiograpi/index.js';

t.test('defaults: nothing set, nothing chosen', async (t) => {
  t.same(aiograpiOptionsFromEnv({}), {});
  t.same(aiograpiOptionsFromEnv({ UNRELATED: 'x', STORE: 'memory://' }), {}, "other components' keys are not ours to judge");
});

t.test('every key parsed', async (t) => {
  t.same(
    aiograpiOptionsFromEnv({
      PYTHON: '/opt/venv/bin/python',
      SIDECAR_PROCESSES: '4',
      SIDECAR_TIMEOUT_MS: '15000',
      PYTHONPATH: '/a:/b',
      SIDECAR_LOG_LEVEL: 'info',
    }),
    { python: '/opt/venv/bin/python', processes: 4, timeoutMs: 15000, pythonPath: ['/a', '/b'], logLevel: 'INFO' },
  );
});

t.test('invalid values name the setting', async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PYTHON: ' ' }, /SOCIALGATE_PYTHON must not be empty/],
    [{ SIDECAR_PROCESSES: '0' }, /SOCIALGATE_SIDECAR_PROCESSES must be an integer from 1 to 64 \(got "0"\)/],
    [{ SIDECAR_PROCESSES: 'two' }, /SOCIALGATE_SIDECAR_PROCESSES/],
    [{ SIDECAR_PROCESSES: '1.5' }, /SOCIALGATE_SIDECAR_PROCESSES/],
    [{ SIDECAR_TIMEOUT_MS: '-5' }, /SOCIALGATE_SIDECAR_TIMEOUT_MS must be an integer/],
    [{ SIDECAR_TIMEOUT_MS: '' }, /SOCIALGATE_SIDECAR_TIMEOUT_MS/],
    [{ SIDECAR_LOG_LEVEL: 'loud' }, /SOCIALGATE_SIDECAR_LOG_LEVEL must be one of DEBUG, INFO, WARNING, ERROR/],
  ];
  for (const [extra, message] of cases) t.throws(() => aiograpiOptionsFromEnv(extra), { message }, JSON.stringify(extra));
  t.throws(() => createAiograpi({ processes: 0 }), { message: /processes must be an integer/ });
});

t.test('creating the adapter starts nothing', async (t) => {
  const adapter = createAiograpi({ python: '/nonexistent/python3' });
  t.equal(adapter.name, 'aiograpi');
  t.same(adapter.library, { name: 'aiograpi', version: 'unknown' });
  t.same(adapter.pids(), [undefined]);
  await adapter.open({ settings: {} });
  t.same(adapter.pids(), [undefined], 'open does not start a sidecar either');
  await adapter.close();
});
