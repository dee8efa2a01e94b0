// `socialgate webhooks list|add|remove` and `socialgate events tail` as a user runs
// them (the built CLI) against a service: add prints the id and the secret once, list shows the
// endpoint, remove removes it; tail prints one line per event of the session as it happens.
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { composeApp } from '../../bin/compose.js';
import { testConfig } from '../../engine/config.js';
import { serve } from '../helpers/http.js';
import { sleep } from '../support/process.js';
import { ROOT as root } from '../helpers/root.js';

const bin = join(root, 'bin', 'socialgate.js');
const skip = existsSync(join(root, 'dist', 'bin', 'cli.js')) ? false : 'dist/ is not built: run npm run build (npm test does)';

function cli(args: string[], onOut?: (text: string) => void, onErr?: (text: string) => void) {
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    onOut?.(stdout);
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
    onErr?.(stderr);
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, done };
}

t.test('webhooks add, list, remove; events tail', { skip }, async (t) => {
  const app = await composeApp(testConfig({ extra: { FETCH_ALLOW: '127.0.0.1', WATCH_FLOOR_SECONDS: '0.05' } }));
  const http = await serve(app);
  t.teardown(() => http.close());
  const session = (await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
  // The webhook commands, the tail and the usage error need nothing of each other: they run side by side
  // (each CLI run is a node start-up).
  const usage = cli(['events', 'tail', '--url', http.url]).done;
  const webhooks = async () => {
    const added = await cli(['webhooks', 'add', 'http://127.0.0.1:9/hook', '--kind', 'direct.message.created,session.state.changed', '--url', http.url]).done;
    t.equal(added.code, 0, added.stderr);
    const [id, secret] = added.stdout.trim().split('\n');
    t.match(id, /^ep_/);
    t.match(secret, /^whsec_/);
    t.match(added.stderr, /shown this once/);
    const listed = await cli(['webhooks', 'list', '--url', http.url]).done;
    t.match(listed.stdout, new RegExp(`^${id}\\thttp://127.0.0.1:9/hook\\tdirect.message.created,session.state.changed\\tall sessions\\ton$`, 'm'));
    t.notOk(listed.stdout.includes(secret), 'list never prints the secret');
    t.equal((await cli(['webhooks', 'remove', id, '--url', http.url]).done).code, 0);
    t.equal(
      (await cli(['webhooks', 'list', '--url', http.url]).done).stdout,
      'No webhook endpoints. Add one with: socialgate webhooks add URL\n',
      'an empty list says so',
    );
    const missing = await cli(['webhooks', 'remove', id, '--url', http.url]).done;
    t.not(missing.code, 0);
    t.match(missing.stderr, /WebhookNotFound/);
  };
  const tailing = async () => {
    await http.request('POST', '/events/watch', { form: { interval_seconds: '0.1' }, headers: { 'x-session-id': session } });
    let seen = '';
    let told = '';
    const tail = cli(
      ['events', 'tail', '--session', session, '--url', http.url],
      (out) => (seen = out),
      (err) => (told = err),
    );
    // Up to 30 s: a node start-up beside four others on a busy machine; ends as soon as the line comes.
    for (let i = 0; i < 1500 && !told.includes('listening'); i++) await sleep(20);
    t.match(told, /listening to the session's events/);
    await http.request('POST', '/sandbox/activity', { form: { kind: 'message', from: '5000000002', text: 'tail me' }, headers: { 'x-session-id': session } });
    for (let i = 0; i < 1000 && !seen.includes('tail me'); i++) await sleep(20);
    tail.child.kill('SIGINT');
    const ended = await tail.done;
    t.match(ended.stdout, /^\s+\d+\s+\S+Z\s+direct\.message\.created\s+from demo_2fa in \d+: tail me$/m, 'one line for the message');
    t.equal(ended.code, 0, 'Ctrl-C ends it cleanly');
  };
  await Promise.all([webhooks(), tailing()]);
  t.equal((await usage).code, 2, 'tail without a session shows the usage');
});
