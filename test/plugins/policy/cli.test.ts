// `socialgate sessions policy PREFIX` on a SQLite store: the counters the service wrote to the
// policy's file beside the sessions, read back by the operator's command.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { runSessions } from '../../../bin/sessions.js';
import { testConfig } from '../../../engine/config.js';
import { countingSandbox, patchPolicy, servedWithSession } from '../../helpers/policy.js';

const dir = mkdtempSync(join(tmpdir(), 'socialgate-policy-cli-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const store = `sqlite://${join(dir, 'sessions.sqlite')}`;

t.test('the command prints the budgets used, the window and the warm-up', async (t) => {
  const app = await composeApp(testConfig({ store, dataDir: dir, policy: 'standard' }), { upstream: countingSandbox().upstream });
  const { http, as } = await servedWithSession(app);
  // A window around the current hour (UTC: the session's offset is 0).
  const hour = (offset: number) => `${String((new Date().getUTCHours() + offset + 24) % 24).padStart(2, '0')}:00`;
  const [start, end] = [hour(-2), hour(2)];
  await patchPolicy(http, as, { window_start: start, window_end: end });
  t.equal((await http.request('POST', '/media/like', { form: { media_id: '3955340313237098052_5000000001' }, headers: as })).status, 200);
  t.equal(
    (await http.request('POST', '/media/like', { form: { media_id: '3955340313237098052_5000000001' }, headers: as })).status,
    429,
    'one like a minute while warming up',
  );
  await http.close();
  let text = '';
  const code = await runSessions(['policy', as['x-session-id'].slice(0, 12)], (line) => void (text += line), {
    SOCIALGATE_STORE: store,
    SOCIALGATE_DATA_DIR: dir,
  });
  t.equal(code, 0, text);
  t.match(text, /^preset standard \(service: standard\)$/m);
  t.match(text, `window ${start}-${end} (UTC offset 0 s), open\n`);
  t.match(text, /^warm-up day 0 of 14: 25 % of the preset's write budgets$/m);
  t.match(text, /^like\t1\/1\t1\/5\t1\/75\t-$/m, 'the admitted like counted against the warmed-up limits');
  t.match(text, /^read\t0\/60\t0\/1200\t0\/12000\t-$/m);
  t.notMatch(text, as['x-session-id'], 'never the session id');
});
