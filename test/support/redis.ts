// A throwaway redis-server for the store tests: Debian's package (installed by redis.sh when
// missing), on a free loopback port, with no persistence and its files in a temp folder. When it
// cannot be installed the test fails with the reason; it never passes silently.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Redis {
  readonly url: string;
  readonly port: number;
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
  const dir = mkdtempSync(join(tmpdir(), 'socialgate-redis-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--loglevel', 'warning'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  await waitForPong(port, child, () => stderr);
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForPong(port: number, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${stderr()}`);
    if (await ping(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not answer PING on port ${port} within 10 s: ${stderr()}`);
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

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
