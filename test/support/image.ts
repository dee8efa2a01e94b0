// Container images built and run where no Docker engine runs: Debian's buildah (installed by
// debian-tools.sh when missing) with chroot isolation, its storage in a stable cache folder so that
// a later run on the same machine reuses the Node base and the build's cached layers.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killOnExit, stopChild, tail } from './process.js';
import { fromRoot } from '../helpers/root.js';

/** The base the Dockerfile names, and the release and versions it is made from here. */
export const BASE = { image: 'docker.io/library/node:20-bookworm-slim', release: 'bookworm', npm: '10.8.2' } as const;

/**
 * The folder kept between runs: IMAGE_TEST_CACHE when set, else /var/cache/socialgate-test when it can
 * be written, else one in the temp folder.
 */
export function cacheFolder(): string {
  const candidates = [process.env.IMAGE_TEST_CACHE, '/var/cache/socialgate-test', join(tmpdir(), 'socialgate-test-cache')];
  for (const dir of candidates.filter((d): d is string => Boolean(d))) {
    try {
      mkdirSync(dir, { recursive: true });
      accessSync(dir, constants.W_OK);
      return dir;
    } catch {
      // not writable here: the next candidate
    }
  }
  throw new Error('no writable cache folder for the image test');
}

/** Installs buildah and debootstrap (and the config checkers) when missing; or says why they cannot be had. */
export function ensureDeployTools(): { ok: true } | { missing: string } {
  const script = fromRoot('test', 'support', 'debian-tools.sh');
  const pairs = ['buildah:buildah', 'debootstrap:debootstrap', 'nginx:nginx', 'docker-compose:docker-compose'];
  const result = spawnSync('sh', [script, ...pairs], { encoding: 'utf8', timeout: 600_000 });
  if (result.status === 0) return { ok: true };
  const why = (result.stderr || result.error?.message || '').trim().slice(-400);
  return {
    missing:
      `buildah, debootstrap, nginx or docker-compose is missing and test/support/debian-tools.sh could not install ` +
      `it (exit ${result.status})${why ? `: ${why}` : ''}`,
  };
}

export interface Buildah {
  readonly cache: string;
  /** Runs buildah with the test's storage; rejects with the command's last output when it fails. */
  run(args: readonly string[], timeoutMs?: number): Promise<string>;
  /** Starts a long-running `buildah run` (a service); its output is kept for a failure's message. */
  start(args: readonly string[]): Started;
}

export interface Started {
  readonly output: () => string;
  readonly child: ReturnType<typeof spawn>;
  stop(): Promise<number | null>;
}

export function buildah(cache: string): Buildah {
  const global = ['--root', join(cache, 'storage'), '--runroot', join(cache, 'run'), '--storage-driver', 'overlay'];
  return {
    cache,
    run: (
      args,
      timeoutMs = 2_400_000, // a cold build on a busy machine took 25 min
    ) =>
      new Promise((resolve, reject) => {
        const child = killOnExit(spawn('buildah', [...global, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
        let out = '';
        const err = tail(child.stderr, 4000);
        child.stdout!.on('data', (chunk) => (out += String(chunk)));
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        child.once('exit', (code) => {
          clearTimeout(timer);
          if (code === 0) resolve(out);
          else reject(new Error(`buildah ${args.slice(0, 2).join(' ')} failed (${code ?? 'killed'}): ${(err() || out).slice(-3000)}`));
        });
      }),
    start(args) {
      const child = killOnExit(spawn('buildah', [...global, ...args], { stdio: ['ignore', 'pipe', 'pipe'] }));
      const out = tail(child.stdout, 3000);
      const err = tail(child.stderr, 3000);
      return { child, output: () => `${out()}\n${err()}`.trim(), stop: () => stopChild(child, 'SIGTERM', 10_000) };
    },
  };
}

/** Makes the Node base image (debootstrap root cached as a tarball) unless the storage has it. */
export function makeBase(b: Buildah, node: string, headers: string): Promise<string> {
  const script = fromRoot('test', 'support', 'node-base.sh');
  const global = `buildah --root ${join(b.cache, 'storage')} --runroot ${join(b.cache, 'run')} --storage-driver overlay`;
  return new Promise((resolve, reject) => {
    const child = killOnExit(
      spawn('sh', [script, b.cache, BASE.release, node, BASE.npm, BASE.image, headers], {
        env: { ...process.env, BUILDAH: global },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    const err = tail(child.stderr, 3000);
    child.once('exit', (code) => (code === 0 ? resolve(BASE.image) : reject(new Error(`test/support/node-base.sh failed (${code}): ${err()}`))));
  });
}

/** Whether a host answers HTTPS quickly (the aiograpi target needs PyPI; here it may be closed). */
export async function reachable(url: string, timeoutMs = 4000): Promise<boolean> {
  try {
    const answer = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(timeoutMs) });
    return answer.status < 500;
  } catch {
    return false;
  }
}
