// A throwaway redis-server for the store tests: Debian's package (installed by redis.sh when
// missing), on a free loopback port, with no persistence and its files in a temp folder. When it
// cannot be installed the test fails with the reason; it never passes silently.
import { spawn, spawnSync } from 'node:child_process';
import { createConnection } from 'node:net';
import { freePort, killOnExit, removeFolder, stopChild, tail, tempFolder, waitFor } from './process.js';
import { fromRoot } from '../helpers/root.js';

export interface Redis {
  readonly url: string;
  readonly port: number;
  /** The server's process id (to freeze it); a new one after resume(). */
  readonly pid: number;
  /** Shuts the server down, keeping its data (its append-only file is written at shutdown). */
  halt(): Promise<void>;
  /** Starts it again on the same port, from the data halt() kept. */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

export function ensureRedisServer(): void {
  const script = fromRoot('test', 'support', 'redis.sh');
  const result = spawnSync('sh', [script], { encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) {
    throw new Error(
      `redis-server is missing and test/support/redis.sh could not install it with apt-get (exit ` +
        `${result.status}): ${(result.stderr || result.stdout || '').trim().slice(-500)}`,
    );
  }
}

export async function startRedis(): Promise<Redis> {
  ensureRedisServer();
  const port = await freePort();
  const dir = tempFolder('socialgate-redis-');
  // No snapshots; an append-only file (fsync'd once a second, and at shutdown) so that a halted
  // server comes back with its data, as a production one would.
  const launch = async () => {
    const child = killOnExit(
      spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--dir', dir, '--loglevel', 'warning'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      }),
    );
    await waitFor(`redis-server on port ${port}`, () => ping(port), child, tail(child.stderr), 10_000);
    return child;
  };
  let child: Awaited<ReturnType<typeof launch>>;
  try {
    child = await launch();
  } catch (error) {
    removeFolder(dir);
    throw error;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get pid() {
      return child.pid!;
    },
    async halt() {
      await stopChild(child);
    },
    async resume() {
      child = await launch();
    },
    async stop() {
      await stopChild(child);
      removeFolder(dir);
    },
  };
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write('PING\r\n'));
    socket.setTimeout(500);
    socket.once('data', (data) => {
      socket.destroy();
      resolve(String(data).startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
