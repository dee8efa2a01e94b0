// The README's examples run as written. Every ```sh block that calls
// localhost:8000 (unless an HTML comment just before it says why it is not run) runs in one bash,
// in order, against the product on the sandbox on a free port: the session from the first login
// serves the rest. Each curl reports its status (curl's own --write-out to stderr), and every one
// must be 2xx; a block that fails (--fail, set -e) fails the test. So the README cannot drift again.
import t from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { product } from '../helpers/full-app.js';
import { removeFolder, tempFolder } from '../support/process.js';
import { ROOT, fromRoot } from '../helpers/root.js';

const root = ROOT;
const readme = readFileSync(join(root, 'README.md'), 'utf8');

interface Block {
  readonly line: number;
  readonly text: string;
  readonly skip?: string;
}

/** The sh blocks that call the service, with the reason given for those not run. */
function examples(text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```sh') continue;
    const end = lines.indexOf('```', i + 1);
    const body = lines.slice(i + 1, end).join('\n');
    const skip = /<!-- readme-examples: not run \((.+)\) -->/.exec(lines[i - 1] ?? '')?.[1];
    if (body.includes('localhost:8000')) blocks.push({ line: i + 1, text: body, skip });
    i = end;
  }
  return blocks;
}

function bash(script: string, cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const install = spawnSync('sh', [fromRoot('test', 'support', 'curl.sh')], { encoding: 'utf8', timeout: 300_000 });

t.test("the README's curl examples run as written on the sandbox", async (t) => {
  t.equal(install.status, 0, `curl is installed (test/support/curl.sh): ${install.stderr}`);
  const blocks = examples(readme);
  t.ok(blocks.length >= 4, `${blocks.length} example blocks found`);
  for (const block of blocks.filter((b) => b.skip)) t.comment(`README line ${block.line}: not run (${block.skip})`);
  const run = blocks.filter((b) => !b.skip);
  t.ok(run[0]?.text.includes('SID=$(curl'), 'the first block run logs in');
  const { client } = await product({ extra: { JOB_INTERVAL_MS: '0' } });
  t.teardown(() => client.close());
  const host = new URL(client.url).host;
  const dir = tempFolder('sg-readme-');
  t.teardown(() => removeFolder(dir));
  // curl reports each status on stderr, tagged with the block it came from; set -e stops at a failure.
  const script = [
    'set -euo pipefail',
    `curl() { command curl --write-out '%{stderr}STATUS %{http_code} %{url_effective}\\n' "$@"; }`,
    ...run.map((b) => `echo "BLOCK ${b.line}" >&2\n${b.text.replaceAll('localhost:8000', host)}`),
  ].join('\n');
  const result = await bash(script, dir); // not spawnSync: this process serves the requests
  t.equal(result.status, 0, result.status === 0 ? 'the examples ran to the end' : `the examples stopped: ${result.stderr.slice(-600)}`);
  const statuses = [...result.stderr.matchAll(/^STATUS (\d{3}) (\S+)$/gm)].map((m) => ({ status: Number(m[1]), url: m[2] }));
  const curls = run.reduce((n, b) => n + (b.text.match(/(^|\$\(|\|\s*)curl /gm)?.length ?? 0), 0);
  t.equal(statuses.length, curls, `every curl answered (${statuses.length} of ${curls})`);
  for (const { status, url } of statuses) t.ok(status >= 200 && status < 300, `${status} ${url.replace(host, 'localhost:8000')}`);
  t.ok(readdirSync(dir).includes('demo_3955340313237098052.jpg'), 'the photo download saved the JPEG under its name');
  t.match(readFileSync(join(dir, 'demo_3955340313237098052.jpg')).subarray(0, 3), Buffer.from([0xff, 0xd8, 0xff]), 'a JPEG');
  t.match(readFileSync(join(dir, 'followers.csv'), 'utf8'), /^pk,/, 'the job export is a CSV');
  t.match(result.stdout, /"next_cursor":"[^"]+"/, 'the page example shows a next_cursor');
});
