// Real service instances for the shared-store tests: `node bin/socialgate.js serve` from the built
// dist (npm test builds first), each on its own free loopback port with its own data folder, all
// given one SOCIALGATE_SESSION_KEY. Ready once GET /ready answers 200, which means the store is
// reachable. The environment is cleaned of SOCIALGATE_* names: an unknown one stops the start.
import { spawn, type ChildProcess } from 'node:child_process';
import { fromRoot } from '../helpers/root.js';
import { freePort, killOnExit, removeFolder, stopChild, tail, tempFolder, waitFor } from './process.js';

const CLI = fromRoot('bin', 'socialgate.js');

export interface ServiceOptions {
  /** The store URL; absent: the default SQLite file in the instance's own data folder. */
  readonly store?: string;
  /** SOCIALGATE_SESSION_KEY: 32 bytes as 64 hex digits. */
  readonly key: string;
  readonly sessionCacheTtlMs?: number;
  /** Further SOCIALGATE_* settings (e.g. SOCIALGATE_JOB_INTERVAL_MS). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly text: string;
}

export interface Service {
  readonly url: string;
  request(method: string, path: string, options?: { form?: Record<string, string>; headers?: Record<string, string> }): Promise<Reply>;
  /** SIGTERM; answers the exit code (0 when it shut down cleanly). */
  stop(): Promise<number | null>;
  /** SIGKILL, as a crash: nothing is flushed or closed. */
  kill(): Promise<void>;
  /** Starts the process again on the same port and data folder; resolves once ready. */
  start(): Promise<void>;
  /** Stops it and removes its data folder. */
  dispose(): Promise<void>;
  /** The running process's pid (undefined before start). */
  pid(): number | undefined;
}

/**
 * Starts `count` instances in parallel; on any failure the others are disposed of too. `apart[i]` adds
 * settings of its own to the i-th (one started beside the others instead of after them).
 */
export async function startServices(count: number, options: ServiceOptions, apart: readonly ServiceOptions['env'][] = []): Promise<Service[]> {
  const services = await Promise.all(Array.from({ length: count }, (_, i) => service({ ...options, env: { ...options.env, ...apart[i] } })));
  const started = await Promise.allSettled(services.map((s) => s.start()));
  const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    await Promise.all(services.map((s) => s.dispose()));
    throw failed.reason;
  }
  return services;
}

async function service(options: ServiceOptions): Promise<Service> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = tempFolder('sg-instance-');
  let child: ChildProcess | undefined;
  return {
    url,
    request: (method, path, request = {}) => send(url, method, path, request),
    async start() {
      const args = [
        CLI,
        'serve',
        '--port',
        String(port),
        '--host',
        '127.0.0.1',
        ...(options.store ? ['--store', options.store] : []),
        '--data-dir',
        dataDir,
        '--log-level',
        'warn',
      ];
      if (options.sessionCacheTtlMs !== undefined) args.push('--session-cache-ttl-ms', String(options.sessionCacheTtlMs));
      child = killOnExit(spawn(process.execPath, args, { env: { ...environment(options.key), ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] }));
      const output = tail(child.stderr);
      child.stdout!.resume();
      await waitFor(`socialgate serve on port ${port}`, () => isReady(url), child, output, 30_000);
    },
    stop: () => (child ? stopChild(child, 'SIGTERM', 10_000) : Promise.resolve(null)),
    kill: async () => void (child && (await stopChild(child, 'SIGKILL'))),
    pid: () => child?.pid,
    async dispose() {
      if (child) await stopChild(child, 'SIGTERM', 2000);
      removeFolder(dataDir);
    },
  };
}

function environment(key: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!name.startsWith('SOCIALGATE_') && name !== 'PORT' && name !== 'HOST') env[name] = value;
  // No account-safety budgets unless a test asks (as testConfig): these tests run many calls a minute on one session.
  return { ...env, SOCIALGATE_SESSION_KEY: key, SOCIALGATE_UPSTREAM: 'sandbox', SOCIALGATE_SANDBOX_LIVE_SECONDS: '0', SOCIALGATE_POLICY: 'off' };
}

async function isReady(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/ready`, { signal: AbortSignal.timeout(2000) });
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

async function send(url: string, method: string, path: string, options: { form?: Record<string, string>; headers?: Record<string, string> }): Promise<Reply> {
  const body = options.form ? new URLSearchParams(options.form) : undefined;
  const response = await fetch(new URL(path, url), { method, headers: options.headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed, text };
}
