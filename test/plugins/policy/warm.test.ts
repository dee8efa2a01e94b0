// The policy's counters are opened behind the boot (plugins/policy/policy.ts, warm): a session's
// first counted call does not wait for the connection and the tables within the store timeout (a
// new PostgreSQL connection and its schema took over 300 ms in a busy full run, and that call
// answered 503). A store that cannot be opened then is met by name by the calls, not by the boot.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { memoryCounters } from '../../../plugins/policy/counters.js';
import { Policy } from '../../../plugins/policy/policy.js';
import { serve } from '../../helpers/http.js';
import { poll } from '../../helpers/poll.js';

t.test('the counters are opened once, behind the boot', async (t) => {
  let opened = 0;
  const store = { ...memoryCounters(), open: async () => void opened++ };
  const policy = new Policy(testConfig({ policy: 'standard' }), Date.now, undefined, store);
  policy.warm();
  t.equal(
    await poll(
      'the counters opened',
      async () => opened,
      (n) => n > 0,
      5_000,
    ),
    1,
  );
  await policy.close();
});

t.test('a store that cannot be opened at boot: the boot goes on, nothing is left unhandled', async (t) => {
  const store = { ...memoryCounters(), open: () => Promise.reject(new Error('store down')) };
  const policy = new Policy(testConfig({ policy: 'standard' }), Date.now, undefined, store);
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => void unhandled.push(reason);
  process.on('unhandledRejection', record);
  t.teardown(() => void process.off('unhandledRejection', record));
  policy.warm();
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.same(unhandled, []);
  await policy.close();
});

t.test('on SQLite, the counters file is there after the boot, before any call', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'socialgate-policy-warm-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const app = await composeApp(testConfig({ store: `sqlite://${join(dir, 'sessions.sqlite')}`, dataDir: dir }));
  const http = await serve(app);
  t.teardown(() => http.close());
  const file = join(dir, 'policy.sqlite');
  t.ok(await poll('policy.sqlite', async () => existsSync(file), Boolean, 5_000), 'policy.sqlite made at boot');
});
