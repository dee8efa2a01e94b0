// A throwaway redis-server for the store tests: Debian's package (installed by redis.sh when
// missing), on a free loopback port, with no persistence and its files in a temp folder. When it
// cannot be installed the test fails with the reason; it never passes silently.
import { spawn, spawnSync } from 'node:child_process';
import { createConnection } from 'node:net';
import { fileURLToPath } from 'node:url';
import { freePort, killOnExit, removeFolder, stopChild, tail, tempFolder, waitFor } from './process.js';

export interface Redis {
  readonly url: string;
  readonly port: number;
  /** The server's process id (to freeze it). */
  readonly pid: number;
  stop(): Promise<void>;
}

export function ensureRedisServer(): void {
  const script = fileURLToPath(new URL('./redis.sh', import.meta.url));
  const result = spawnSync('sh', [script], { encoding: 'utf8', timeout: 300_000 });
  if (result.status !== 0) {
    throw new Error(`redis-server is missing and test/support/redis.sh could not install it with apt-get (exit ${result.status}): ${(result.stderr || result.stdout || '').trim().slice(-500)}`);
  }
}

export async function startRedis(): Promise<Redis> {
  ensureRedisServer();
  const port = await freePort();
  const dir = tempFolder('socialgate-redis-');
  const child = killOnExit(spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--loglevel', 'warning'], { stdio: ['ignore', 'ignore', 'pipe'] }));
  const output = tail(child.stderr);
  try {
    await waitFor(`redis-server on port ${port}`, () => ping(port), child, output, 10_000);
  } catch (error) {
    removeFolder(dir);
    throw error;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
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
