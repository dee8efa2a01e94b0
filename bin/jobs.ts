// `socialgate jobs start|watch|export`: a client of a running service's /jobs routes.
//   jobs start ROUTE key=value... [--limit N] [--pool NAME]   prints the job id
//   jobs watch ID             a progress bar on a terminal (items, rate, time left); plain lines otherwise
//   jobs export ID [--format ndjson|csv|json] [--follow]      the results on stdout
// Common: --url URL (default http://127.0.0.1:8000), --session ID (X-Session-ID), --api-key KEY.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { client, json, parseArgs, type Api } from './remote.js';

export interface JobsIo {
  readonly out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly err: (text: string) => void;
  /** Milliseconds between looks at a watched job. */
  readonly pollMs?: number;
}

const USAGE = `usage: socialgate jobs start ROUTE key=value... [--limit N] [--pool NAME]
       socialgate jobs watch ID
       socialgate jobs export ID [--format ndjson|csv|json] [--follow]
options: --url URL (default http://127.0.0.1:8000)  --session ID  --api-key KEY
`;
type Job = {
  id: string;
  state: string;
  items: number;
  pages: number;
  rate: number;
  eta_seconds: number | null;
  paused?: { reason: string; until?: number };
  error?: { detail: string };
};

export async function runJobs(argv: readonly string[], io: JobsIo): Promise<number> {
  const [action, ...rest] = argv;
  const { flags, positional } = parseArgs(rest, ['--limit', '--pool', '--format'], ['--follow']);
  const api = client(flags);
  if (action === 'start' && positional[0]) return start(api, positional, flags, io);
  if (action === 'watch' && positional[0]) return watch(api, positional[0], io);
  if (action === 'export' && positional[0]) return exportTo(api, positional[0], flags, io);
  io.err(USAGE);
  return 2;
}

/** `key=value` pairs become the route's parameters (a key given twice becomes a list). */
async function start(api: Api, positional: readonly string[], flags: Map<string, string>, io: JobsIo): Promise<number> {
  const [route, ...pairs] = positional;
  const params: Record<string, string | string[]> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`parameters are key=value, got "${pair}"`);
    const [key, value] = [pair.slice(0, at), pair.slice(at + 1)];
    const before = params[key];
    params[key] = before === undefined ? value : [...[before].flat(), value];
  }
  const form: Record<string, string> = { route: route.includes(' ') || !route.startsWith('/') ? route : `GET ${route}`, params: JSON.stringify(params) };
  if (flags.has('--limit')) form.limit = flags.get('--limit')!;
  if (flags.has('--pool')) form.pool = flags.get('--pool')!;
  const job = await json<Job>(await api('POST', '/jobs', form));
  io.out.write(job.id + '\n');
  return 0;
}

async function watch(api: Api, id: string, io: JobsIo): Promise<number> {
  const tty = io.out.isTTY === true;
  let last = '';
  for (;;) {
    const job = await json<Job>(await api('GET', `/jobs/status?id=${encodeURIComponent(id)}`));
    const line = tty ? bar(job, io.out.columns ?? 80) : progressLine(job);
    if (tty) io.out.write('\r' + line);
    else if (line !== last) io.out.write(line + '\n');
    last = line;
    if (['done', 'failed', 'cancelled'].includes(job.state)) {
      if (tty) io.out.write('\n');
      if (job.error) io.err(`job failed: ${job.error.detail}\n`);
      return job.state === 'done' ? 0 : 1;
    }
    await new Promise((resolve) => setTimeout(resolve, io.pollMs ?? 1000));
  }
}

export function progressLine(job: Job): string {
  const parts = [job.state, `${job.items} items`, `${job.pages} pages`, `${job.rate}/s`];
  if (job.eta_seconds !== null) parts.push(`${duration(job.eta_seconds)} left`);
  if (job.paused) parts.push(`paused: ${job.paused.reason}${job.paused.until ? ` until ${new Date(job.paused.until).toISOString()}` : ''}`);
  return parts.join(' · ');
}

/** A bar when the total is known (a limit), a spinner-free count otherwise; fits the terminal. */
function bar(job: Job, columns: number): string {
  const text = progressLine(job);
  const total = job.eta_seconds !== null && job.rate > 0 ? job.items + job.eta_seconds * job.rate : undefined;
  const width = Math.max(10, Math.min(40, columns - text.length - 4));
  const filled = total ? Math.round((job.items / total) * width) : job.state === 'done' ? width : 0;
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`.slice(0, columns - 1).padEnd(columns - 1);
}

function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

async function exportTo(api: Api, id: string, flags: Map<string, string>, io: JobsIo): Promise<number> {
  const query = new URLSearchParams({ id, format: flags.get('--format') ?? 'ndjson', follow: flags.get('--follow') ?? 'false' });
  const response = await api('GET', `/jobs/results?${query}`);
  if (!response.ok || !response.body) throw new Error(`${response.status}: ${await response.text()}`);
  await pipeline(Readable.fromWeb(response.body as never), io.out, { end: false });
  return 0;
}
