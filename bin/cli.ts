// socialgate CLI: serve, mcp, openapi, routes, audit, sessions, keys, jobs, webhooks, events.
import { createServer } from 'node:http';
import { loadConfig } from '../engine/config.js';
import { defaultManifestDir, loadManifest } from '../engine/manifest/load.js';
import { buildOpenApi } from '../engine/openapi.js';
import { composeApp, productRegistries } from './compose.js';
import { guardServer } from '../engine/app.js';
import { isStoreDown } from '../adapters/store/bounded.js';

const USAGE = `usage: socialgate <command> [options]

commands:
  serve [--port N] [--host H] [--upstream sandbox|aiograpi] [--store URL] [--cache-size N] ...
                 serve the API (see README for every setting and its environment variable)
  mcp [--url URL] [--session ID] [--api-key KEY] [--timeout-ms N]
                 MCP over stdio for desktop clients, forwarding to a running socialgate's /mcp
                 (or SOCIALGATE_URL, SOCIALGATE_SESSION_ID, SOCIALGATE_API_KEY; URL defaults to http://127.0.0.1:8000)
  openapi        print the OpenAPI document
  routes         list the route table (method, path, operation id, upstream methods)
  audit          classify the upstream's public methods against the manifest (--json, --markdown, --methods FILE)
  sessions list | sessions revoke PREFIX | sessions label PREFIX [TEXT] | sessions policy PREFIX
                 operate on the session store (a prefix as \`sessions list\` prints it); policy: budgets used, window, warm-up
  keys add NAME --scope read[,write,operator] [--accounts A,B] [--pools P,Q] | keys list | keys revoke NAME
                 named API keys, kept hashed in the session store
  jobs start ROUTE key=value... | jobs watch ID | jobs export ID --format csv
                 start, watch and export background jobs on a running service (--url, --session)
  webhooks list | webhooks add URL [--kind T,...] [--for SESSION,...] | webhooks remove ID
                 manage webhook endpoints of a running service (--url, --api-key)
  events tail --session ID [--types T,...] [--from N]
                 a live view of one session's events in the terminal
`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serve(rest);
      case 'mcp':
        return await mcp(rest);
      case 'openapi':
        return printOpenApi();
      case 'routes':
        return printRoutes();
      case 'audit':
        return await audit(rest);
      case 'sessions':
        return await sessions(rest);
      case 'keys':
        return await keys(rest);
      case 'jobs':
        return await jobs(rest);
      case 'webhooks':
        return await webhooks(rest);
      case 'events':
        return await events(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        return command ? 0 : 2;
      default:
        process.stderr.write(`socialgate: unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    process.stderr.write(`socialgate: ${unreachable(error) ?? (error as Error).message}\n`);
    return 1;
  }
}

/**
 * A store that is down or frozen, met by `sessions` (StoreUnavailable: each call, and the opening,
 * is bounded) or by a client command (the service answered 503 StoreUnavailable): said plainly.
 */
function unreachable(error: unknown): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (isStoreDown(error)) return `the store is unreachable: ${message}`;
  if (/^503: .*StoreUnavailable/s.test(message)) return `the service's store is unreachable (503 StoreUnavailable); retry later. ${message.slice(5)}`;
  return undefined;
}

async function serve(argv: string[]): Promise<number> {
  const config = loadConfig(argv);
  const app = await composeApp(config);
  const server = createServer(app.callback());
  guardServer(server, app);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(config.port, config.host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  app.services.log.info('socialgate listening', {
    url: `http://${config.host}:${port}`,
    docs: `http://${config.host}:${port}/docs`,
    upstream: config.upstream,
    routes: app.manifest.routes.length,
  });
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', () => resolve());
    process.once('SIGINT', () => resolve());
  });
  app.services.log.info('socialgate stopping');
  // Finish requests in flight, refuse new ones, then release the store and the upstream.
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  await closed;
  await app.close();
  // Everything is closed, every connection severed (adapters/work/bullmq-queue.ts severAll); a
  // library's handle we do not know of must still not keep a stopped service alive (the timer does
  // not hold the process when nothing else does).
  setTimeout(() => process.exit(0), 1000).unref();
  return 0;
}

function printOpenApi(): number {
  const manifest = loadManifest(defaultManifestDir(), productRegistries(loadConfig([])));
  process.stdout.write(JSON.stringify(buildOpenApi(manifest), null, 2) + '\n');
  return 0;
}

function printRoutes(): number {
  const manifest = loadManifest(defaultManifestDir(), productRegistries(loadConfig([])));
  const rows = manifest.routes.map((r) => [r.method, r.path, r.id, r.plugin ? `plugin ${r.plugin}` : r.upstreamMethods.join(', ')]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length)));
  for (const row of rows) process.stdout.write(row.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]) : cell)).join('  ') + '\n');
  process.stdout.write(`${rows.length} routes\n`);
  return 0;
}

async function mcp(argv: string[]): Promise<number> {
  const { runMcp } = await import('./mcp.js');
  return runMcp(argv);
}

async function audit(argv: string[]): Promise<number> {
  const { runAudit } = await import('./audit.js');
  return runAudit(argv, (text) => process.stdout.write(text));
}

async function sessions(argv: string[]): Promise<number> {
  const { runSessions } = await import('./sessions.js');
  return runSessions(argv, (text) => process.stdout.write(text));
}

async function keys(argv: string[]): Promise<number> {
  const { runKeys } = await import('./keys.js');
  return runKeys(argv, (text) => process.stdout.write(text));
}

async function webhooks(argv: string[]): Promise<number> {
  const { runWebhooks } = await import('./events.js');
  return runWebhooks(argv, { out: process.stdout, err: (text) => process.stderr.write(text) });
}

async function events(argv: string[]): Promise<number> {
  const { runEvents } = await import('./events.js');
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  return runEvents(argv, { out: process.stdout, err: (text) => process.stderr.write(text), signal: stop.signal });
}

async function jobs(argv: string[]): Promise<number> {
  const { runJobs } = await import('./jobs.js');
  return runJobs(argv, { out: process.stdout, err: (text) => process.stderr.write(text) });
}
