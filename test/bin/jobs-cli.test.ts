// `socialgate jobs start|watch|export` as a user runs them (the built CLI)
// against a service: start prints the id, watch prints progress lines until the job is done (no
// terminal here, so plain lines), export writes the results in the format asked for.
import t from 'tap';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { composeApp } from '../../bin/compose.js';
import { testConfig } from '../../engine/config.js';
import { FIXED } from '../../adapters/upstream/sandbox/index.js';
import { serve } from '../helpers/http.js';
import { ROOT as root } from '../helpers/root.js';

const bin = join(root, 'bin', 'socialgate.js');
const skip = existsSync(join(root, 'dist', 'bin', 'cli.js')) ? false : 'dist/ is not built: run npm run build (npm test does)';

/** The CLI in a child process (this process keeps serving meanwhile). */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

t.test('start, watch and export a job', { skip }, async (t) => {
  const app = await composeApp(testConfig({ extra: { JOB_INTERVAL_MS: '20' } }));
  const http = await serve(app);
  t.teardown(() => http.close());
  const session = (await http.request('POST', '/auth/login', { form: { username: 'demo', password: 'demo-password' } })).body as string;
  const common = ['--url', http.url, '--session', session];
  // The refused job and the usage error need nothing of the job: they run beside its start (each CLI run is a node start-up).
  const [started, bad, usage] = await Promise.all([
    cli(['jobs', 'start', '/user/followers', `user_id=${FIXED.demo}`, 'amount=40', ...common]),
    cli(['jobs', 'start', '/user/info', ...common]),
    cli(['jobs', 'frobnicate']),
  ]);
  t.equal(started.code, 0, started.stderr);
  const id = started.stdout.trim();
  t.match(id, /^[\w-]{8,}$/, 'prints the job id');
  const watched = await cli(['jobs', 'watch', id, ...common]);
  t.equal(watched.code, 0, watched.stderr);
  const lines = watched.stdout.trim().split('\n');
  t.match(lines[lines.length - 1], /^done · \d+ items · \d+ pages · [\d.]+\/s/, 'the last line says done, with items, pages and rate');
  t.notMatch(watched.stdout, /\r/, 'plain lines when the output is not a terminal');
  const exported = await cli(['jobs', 'export', id, '--format', 'csv', ...common]);
  t.equal(exported.code, 0, exported.stderr);
  const rows = parse(exported.stdout, { columns: true }) as { pk: string }[];
  const followers = (app.services.upstream as unknown as { world: { users: Map<string, { followers: Set<string> }> } }).world.users.get(FIXED.demo)!.followers;
  t.same(new Set(rows.map((r) => r.pk)), followers, 'the CSV holds every follower');
  t.equal(rows.length, followers.size, 'once each');
  t.equal(bad.code, 1, 'a refused job is an error');
  t.match(bad.stderr, /not a paged route/);
  t.equal(usage.code, 2, 'usage');
});
