// The official MCP conformance suite (@modelcontextprotocol/conformance, the version that runs on
// Node 20) against the real service: its active server scenarios, one process, about ten seconds.
// The scenarios that apply to a real server (initialize, ping, tools, resources, prompts, logging,
// completion, DNS-rebinding protection) must pass; the ones that call the suite's reference
// server's own fixtures by name are listed in test/fixtures/mcp-conformance-expected-failures.yml,
// and the suite itself fails the run when a listed one passes or an unlisted one fails.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { composeApp } from '../../../bin/compose.js';
import { testConfig } from '../../../engine/config.js';
import { projectRoot } from '../../../engine/manifest/load.js';
import { serve } from '../../helpers/http.js';

const MUST_PASS = [
  'server-initialize',
  'ping',
  'tools-list',
  'tools-call-error',
  'logging-set-level',
  'completion-complete',
  'resources-list',
  'prompts-list',
  'dns-rebinding-protection',
];

const cli = join(createRequire(import.meta.url).resolve('@modelcontextprotocol/conformance/package.json'), '..', 'dist', 'index.js');
const http = await serve(await composeApp(testConfig({ logLevel: 'silent' })));
t.teardown(() => http.close());
const work = mkdtempSync(join(tmpdir(), 'sg-conformance-'));
t.teardown(() => rmSync(work, { recursive: true, force: true }));

t.test("the active server scenarios pass, apart from those that need the reference server's fixtures", async (t) => {
  const url = `http://localhost:${new URL(http.url).port}/mcp`;
  const baseline = join(projectRoot(), 'test', 'fixtures', 'mcp-conformance-expected-failures.yml');
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [cli, 'server', '--url', url, '--expected-failures', baseline, '-o', work],
      { cwd: work, timeout: 90_000, maxBuffer: 32 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` });
      },
    );
  });
  const summary = output.slice(output.lastIndexOf('=== SUMMARY ==='));
  t.equal(code, 0, `the suite accepts the run (exit ${code})\n${summary}`);
  for (const scenario of MUST_PASS) t.match(summary, new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`), `${scenario} passes`);
});
