// Issue 17, point 6 (`npm run build && node dist/bench/sidecar-open.js`; figures only): the time
// and the sidecar's memory to open 1,000 accounts in one sidecar. Each account is a client opened
// from its own settings export and asked for its export back (the sidecar builds the library's
// Client on the first op). The library is the installed aiograpi when SOCIALGATE_PYTHON /
// SOCIALGATE_PYTHONPATH name one, else the stand-in package (say which: the report does).
import { readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAiograpi } from '../adapters/upstream/aiograpi/index.js';

const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1000);

function rssKb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.replace(/\D+/g, '') ?? 0);
}

export async function benchSidecarOpen(): Promise<Record<string, string>> {
  const given = (process.env.SOCIALGATE_PYTHONPATH ?? '').split(delimiter).filter(Boolean);
  const pythonPath = given.length ? given : [fileURLToPath(new URL('../../test/fixtures', import.meta.url))];
  const adapter = createAiograpi({ python: process.env.SOCIALGATE_PYTHON || 'python3', pythonPath, timeoutMs: 60_000 });
  try {
    const library = await adapter.describe();
    const pid = adapter.pids()[0]!;
    const before = rssKb(pid);
    const started = performance.now();
    const clients = [];
    for (let i = 0; i < ACCOUNTS; i++) {
      const pk = String(5_100_000_000 + i);
      const client = await adapter.open({
        settings: { uuids: { uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}` }, authorization_data: { ds_user_id: pk } },
        sessionKey: pk,
      });
      await client.exportSettings();
      clients.push(client);
    }
    const seconds = (performance.now() - started) / 1000;
    const after = rssKb(pid);
    for (const client of clients) await client.close();
    return {
      library: `aiograpi ${library.version} (${given.length ? 'installed, from SOCIALGATE_PYTHONPATH' : 'the stand-in package test/fixtures/aiograpi'})`,
      accounts: String(ACCOUNTS),
      'time to open them all, s': seconds.toFixed(2),
      'per account, ms': ((seconds * 1000) / ACCOUNTS).toFixed(2),
      'sidecar RSS before / after, MB': `${(before / 1024).toFixed(0)} / ${(after / 1024).toFixed(0)}`,
      'sidecar growth, MB (per account, KB)': `${((after - before) / 1024).toFixed(1)} (${((after - before) / ACCOUNTS).toFixed(1)})`,
    };
  } finally {
    await adapter.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [name, value] of Object.entries(await benchSidecarOpen())) console.log(`${name}: ${value}`);
  process.exit(0);
}
