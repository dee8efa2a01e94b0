// Child processes the store tests start (database servers, service instances): a free loopback
// port, a stop that escalates to SIGKILL, and a last-chance kill when the test process exits
// without running its teardowns (a tap timeout), so no server or temp folder outlives the test.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Sends `signal`, waits for the exit (SIGKILL after `graceMs`), answers the exit code (null when killed). */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    child.kill(signal);
  });
}

const orphans = new Set<ChildProcess>();
const folders = new Set<string>();
process.once('exit', () => {
  for (const child of orphans) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

/** Kills `child` when this process exits; forgotten once the child exits by itself. */
export function killOnExit(child: ChildProcess): ChildProcess {
  orphans.add(child);
  child.once('exit', () => orphans.delete(child));
  return child;
}

/** A fresh temp folder, removed when this process exits if `removeFolder` has not removed it before. */
export function tempFolder(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  folders.add(dir);
  return dir;
}

export function removeFolder(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  folders.delete(dir);
}

/** Keeps the last `limit` characters a stream wrote: enough to explain a failed start. */
export function tail(stream: NodeJS.ReadableStream | null, limit = 2000): () => string {
  let text = '';
  stream?.on('data', (chunk) => (text = (text + String(chunk)).slice(-limit)));
  return () => text.trim();
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it answers true; throws naming `what` (and why the child died) otherwise. */
export async function waitFor(what: string, probe: () => Promise<boolean>, child: ChildProcess, output: () => string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) before it was ready: ${output()}`);
    if (await probe()) return;
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`${what} was not ready within ${timeoutMs / 1000} s: ${output()}`);
}
