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
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

type Server = { proc: ChildProcess; port: number; session: string; path: string };

async function child(kind: string): Promise<Server> {
  const proc = spawn(process.execPath, [fileURLToPath(new URL('./servers.js', import.meta.url)), 'child', kind], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const line = await new Promise<string>((resolve) => createInterface({ input: proc.stdout! }).once('line', resolve));
  return { proc, ...JSON.parse(line) };
}

/** The server process's CPU time so far, in microseconds (asked over IPC). */
function cpuOf(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.proc.once('message', (usage: NodeJS.CpuUsage) => resolve(usage.user + usage.system));
    server.proc.send('cpu');
  });
}

/**
 * One round of load. Besides throughput, the server's own CPU time per request: the machine's
 * noise (another process, CPU steal) moves requests per second a lot, CPU per request much less.
 */
async function load(target: Server, duration = DURATION): Promise<{ rps: number; p99: number; errors: number; cpuUs: number }> {
  const before = await cpuOf(target);
  const result = await autocannon({ url: `http://127.0.0.1:${target.port}${target.path}`, connections: CONNECTIONS, duration, headers: { 'x-session-id': target.session } });
  const cpu = (await cpuOf(target)) - before;
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx, cpuUs: cpu / Math.max(1, result.requests.total) };
}

async function main(): Promise<void> {
  const boot = await benchBoot();
  process.stdout.write(`boot: ${JSON.stringify(boot)}\n`);
  const servers = { socialgate: await child('socialgate'), bare: await child('bare'), node: await child('node') };
  const totals = { socialgate: 0, bare: 0, node: 0 };
  const cpu = { socialgate: 0, bare: 0, node: 0 };
  try {
    // Unmeasured first: both servers' code is optimised by the JIT before any round counts.
    for (const server of Object.values(servers)) await load(server, WARMUP);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const kind of ['node', 'bare', 'socialgate'] as const) {
        const figures = await load(servers[kind]);
        totals[kind] += figures.rps;
        cpu[kind] += figures.cpuUs;
        process.stdout.write(`round ${round} ${kind.padEnd(10)} ${figures.rps.toFixed(0)} req/s  p99 ${figures.p99} ms  ${figures.cpuUs.toFixed(1)} µs CPU/request  errors ${figures.errors}\n`);
      }
    }
  } finally {
    for (const server of Object.values(servers)) server.proc.kill();
  }
  const ratio = totals.socialgate / totals.bare;
  process.stdout.write(`hot path: socialgate ${(totals.socialgate / ROUNDS).toFixed(0)} req/s, bare Koa ${(totals.bare / ROUNDS).toFixed(0)} req/s, ratio ${ratio.toFixed(2)} (target ≥ 0.80)\n`);
  process.stdout.write(`hot path against bare node:http sending the same bytes (${(totals.node / ROUNDS).toFixed(0)} req/s): ratio ${(totals.socialgate / totals.node).toFixed(2)} (target ≥ 0.35)\n`);
  const [sg, bare, node] = [cpu.socialgate / ROUNDS, cpu.bare / ROUNDS, cpu.node / ROUNDS];
  process.stdout.write(`server CPU per request: socialgate ${sg.toFixed(1)} µs, bare Koa ${bare.toFixed(1)} µs (ratio ${(bare / sg).toFixed(2)}), node:http ${node.toFixed(1)} µs (ratio ${(node / sg).toFixed(2)})\n`);
  if (process.env.BENCH_SKIP_TRANSFER !== '1') process.stdout.write(`transfer (200 MB each):\n${formatFigures(await benchTransfer())}\n`);
}

await main();
