// `npm run bench`: prints figures, asserts nothing. The hot path compares socialgate with a bare
// Koa route doing the same work, each in its own child process, measured by autocannon from this
// process in alternating rounds so machine noise hits both alike.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { benchBoot } from './boot.js';
import { benchTransfer, formatFigures } from './transfer.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

async function child(kind: string): Promise<{ proc: ChildProcess; port: number; session: string; path: string }> {
  const proc = spawn(process.execPath, [fileURLToPath(new URL('./servers.js', import.meta.url)), 'child', kind], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve) => createInterface({ input: proc.stdout! }).once('line', resolve));
  return { proc, ...JSON.parse(line) };
}

async function load(target: { port: number; session: string; path: string }): Promise<{ rps: number; p99: number; errors: number }> {
  const result = await autocannon({ url: `http://127.0.0.1:${target.port}${target.path}`, connections: CONNECTIONS, duration: DURATION, headers: { 'x-session-id': target.session } });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function main(): Promise<void> {
  const boot = await benchBoot();
  process.stdout.write(`boot: ${JSON.stringify(boot)}\n`);
  const servers = { socialgate: await child('socialgate'), bare: await child('bare') };
  const totals = { socialgate: 0, bare: 0 };
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const kind of ['bare', 'socialgate'] as const) {
        const figures = await load(servers[kind]);
        totals[kind] += figures.rps;
        process.stdout.write(`round ${round} ${kind.padEnd(10)} ${figures.rps.toFixed(0)} req/s  p99 ${figures.p99} ms  errors ${figures.errors}\n`);
      }
    }
  } finally {
    for (const server of Object.values(servers)) server.proc.kill();
  }
  const ratio = totals.socialgate / totals.bare;
  process.stdout.write(`hot path: socialgate ${(totals.socialgate / ROUNDS).toFixed(0)} req/s, bare Koa ${(totals.bare / ROUNDS).toFixed(0)} req/s, ratio ${ratio.toFixed(2)} (target ≥ 0.80)\n`);
  if (process.env.BENCH_SKIP_TRANSFER !== '1') process.stdout.write(`transfer (200 MB each):\n${formatFigures(await benchTransfer())}\n`);
}

await main();
