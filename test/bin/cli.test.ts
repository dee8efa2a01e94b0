// The CLI as a user runs it (the compiled build, as `npm start` does): serve on the sandbox, answer,
// stop cleanly on SIGTERM; print the OpenAPI document and the route table; refuse bad options.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t from 'tap';
import { ROOT as root } from '../helpers/root.js';

const bin = join(root, 'bin', 'socialgate.js');
const built = existsSync(join(root, 'dist', 'bin', 'cli.js'));
const skip = built ? false : 'dist/ is not built: run npm run build (npm test does)';

/** The CLI in a child process: its exit status and what it printed. Runs that need nothing of each other go side by side. */
function run(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

t.test('serve answers on the sandbox and stops cleanly on SIGTERM', { skip }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sg-cli-'));
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, SOCIALGATE_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  t.teardown(() => child.kill('SIGKILL'));
  const lines = createInterface({ input: child.stderr! });
  const url = await new Promise<string>((resolve, reject) => {
    const seen: string[] = [];
    lines.on('line', (line) => {
      seen.push(line);
      if (!line.startsWith('{')) return;
      const entry = JSON.parse(line) as { msg: string; url?: string };
      if (entry.msg === 'socialgate listening') resolve(entry.url!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${seen.join(' | ')}`)));
  });
  t.same(await (await fetch(`${url}/health`)).json(), { status: 'ok' });
  const login = await fetch(`${url}/auth/login`, { method: 'POST', body: new URLSearchParams({ username: 'demo', password: 'demo-password' }) });
  t.equal(login.status, 200, 'the sandbox login works from a fresh start');
  const docs = await fetch(`${url}/docs`);
  t.match(await docs.text(), /swagger-ui-bundle\.js/);
  t.equal((await fetch(`${url}/docs/assets/swagger-ui-bundle.js`)).status, 200, 'Swagger UI is served locally');
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  t.equal(await exited, 0, 'graceful exit');
});

t.test('openapi and routes print the table', { skip }, async (t) => {
  const [doc, routes] = await Promise.all([run(['openapi']), run(['routes'])]);
  t.equal(doc.status, 0);
  const parsed = JSON.parse(doc.stdout) as { info: { version: string }; paths: Record<string, unknown> };
  t.equal(parsed.info.version, '6.0.0');
  t.equal(routes.status, 0);
  const count = Number(/^(\d+) routes$/m.exec(routes.stdout)?.[1]);
  t.ok(count >= 270, `${count} routes listed`);
  t.match(routes.stdout, /GET\s+\/user\/followers\s+getUserFollowers\s+user_followers_v1_chunk/);
});

t.test('bad options stop the start with a message naming them', { skip }, async (t) => {
  const [flag, value, upstream, typo, limit, usage] = await Promise.all([
    run(['serve', '--prot', '1']),
    run(['serve'], { PORT: 'eighty' }),
    run(['serve', '--upstream', 'nope']),
    run(['serve'], { SOCIALGATE_SANBOX_LATENCY_MS: '5' }),
    run(['serve'], { SOCIALGATE_UPLOAD_MAX_IMAGE_MB: 'lots' }),
    run(['frobnicate']),
  ]);
  t.equal(flag.status, 1);
  t.match(flag.stderr, /unknown option --prot/);
  t.equal(value.status, 1);
  t.match(value.stderr, /PORT must be an integer/);
  t.match(upstream.stderr, /SOCIALGATE_UPSTREAM must be one of sandbox, aiograpi/);
  t.equal(typo.status, 1);
  t.match(typo.stderr, /unknown setting\(s\) SOCIALGATE_SANBOX_LATENCY_MS/);
  t.equal(limit.status, 1);
  t.match(limit.stderr, /UPLOAD_MAX_IMAGE_MB/);
  t.equal(usage.status, 2);
});
