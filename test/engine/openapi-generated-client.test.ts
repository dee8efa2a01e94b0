// The served OpenAPI document feeds a maintained client generator
// (openapi-typescript) whose output compiles under tsc --strict, and it passes redocly's
// recommended lint rules with zero errors. All tools run offline from devDependencies.
import t from 'tap';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { projectRoot } from '../../engine/manifest/load.js';
import { product } from '../helpers/full-app.js';

const run = promisify(execFile);
const root = projectRoot();
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

// Offline: no telemetry, no update checks, no registry look-ups.
const offline = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_UPDATE_NOTIFIER: '1', npm_config_offline: 'true' };

const dir = mkdtempSync(join(tmpdir(), 'sg-client-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
// The document as the product serves it.
const served = await product();
const document = (await served.client.request('GET', '/openapi.json')).body;
await served.client.close();
const docPath = join(dir, 'openapi.json');
writeFileSync(docPath, JSON.stringify(document, null, 1));

t.test(
  'openapi-typescript generates a client that compiles with tsc --strict',
  { skip: existsSync(bin('openapi-typescript')) ? false : 'openapi-typescript is not installed' },
  async (t) => {
    const out = join(dir, 'schema.d.ts');
    // Run beside the document, away from the repo's redocly.yaml: generating is not linting.
    await run(bin('openapi-typescript'), [docPath, '-o', out], { env: offline, cwd: dir, timeout: 120_000 });
    const generated = readFileSync(out, 'utf8');
    t.match(generated, /"\/user\/followers": \{/, 'the generated paths include the catalogue routes');
    t.match(generated, /User: \{/, 'record schemas are typed');
    // A small client program using the generated types: a typo in a field or path fails to compile.
    writeFileSync(
      join(dir, 'use.ts'),
      [
        "import type { paths, components } from './schema.js';",
        "type Followers = paths['/user/followers']['get']['responses']['200']['content']['application/json'];",
        "type User = components['schemas']['User'];",
        'export function firstUsername(page: Followers): string | undefined { return page.items[0]?.username ?? undefined; }',
        'export function next(page: Followers): string { return page.next_cursor; }',
        'export function pkOf(user: User): string { return user.pk; }',
        "type Share = paths['/share']['get']['responses']['200']['content']['application/json'];",
        'export const kind = (s: Share): string => s.type + s.pk + s.code;',
        '',
      ].join('\n'),
    );
    const tsc = await run(
      bin('tsc'),
      [
        '--strict',
        '--noEmit',
        '--skipLibCheck',
        'false',
        '--target',
        'ES2022',
        '--module',
        'NodeNext',
        '--moduleResolution',
        'NodeNext',
        join(dir, 'schema.d.ts'),
        join(dir, 'use.ts'),
      ],
      { env: offline, timeout: 180_000 },
    ).then(
      () => ({ code: 0, out: '' }),
      (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
    );
    t.equal(tsc.code, 0, `tsc --strict compiles the generated client${tsc.out ? `:\n${tsc.out.slice(0, 3000)}` : ''}`);
  },
);

t.test('redocly lint with the recommended rules finds no errors', { skip: existsSync(bin('redocly')) ? false : '@redocly/cli is not installed' }, async (t) => {
  const config = join(root, 'redocly.yaml');
  t.match(readFileSync(config, 'utf8'), /extends:\s*\n\s*- recommended\s*$/m, 'the repo config is the recommended rule set');
  const lint = await run(bin('redocly'), ['lint', docPath, '--format', 'json', '--config', config], {
    env: offline,
    cwd: dir,
    timeout: 180_000,
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    (r) => r.stdout,
    (e: { stdout: string }) => e.stdout,
  );
  const report = JSON.parse(lint) as {
    totals: { errors: number; warnings: number };
    problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
  };
  const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);
  t.same(errors.slice(0, 30), [], `zero errors (of ${report.totals.errors})`);
  t.equal(report.totals.errors, 0);
  t.comment(`redocly warnings: ${report.totals.warnings}`);
});
