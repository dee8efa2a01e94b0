// The Dockerfile, built and run where no Docker engine runs: Debian's buildah builds it with
// chroot isolation on a Node 20 base made here under the name its FROM uses (test/support/node-base.sh),
// then the image's own entrypoint serves on a free port with a host folder as its /data volume:
// /health, /ready, a sandbox login, and the session still valid after the container is stopped and a
// fresh one is started on the same volume. The aiograpi target needs PyPI: built from it only where it
// answers, skipped saying so otherwise; there, the same target is built from a loopback index serving
// the stand-in library as aiograpi 1.0.9 (support/pypi-standin.ts), and serves a login through its
// sidecar. Skipped, saying why, where buildah or debootstrap cannot be installed. A first run on a
// machine makes the base (debootstrap) and fills the layer cache; later runs reuse both from the
// cache folder (support/image.ts).
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildah, cacheFolder, ensureDeployTools, makeBase, reachable, type Buildah } from '../support/image.js';
import { freePort, sleep, tempFolder } from '../support/process.js';
import { serveStandinIndex } from '../support/pypi-standin.js';
import { ROOT } from '../helpers/root.js';

t.setTimeout(2_700_000); // a cold first run on a busy machine: debootstrap, apt, npm ci, the SQLite driver compiled (30 min seen)

const root = ROOT;
const node = process.versions.node;
const headers = join(dirname(dirname(process.execPath)), 'include', 'node');
const CA = ['/etc/ssl/certs/ca-certificates.crt', process.env.NODE_EXTRA_CA_CERTS ?? ''].find((path) => path && existsSync(path));
const NODE_UID = 1000; // the base image's `node` user, which the Dockerfile runs as

const tools = ensureDeployTools();
if ('missing' in tools) t.plan(0, tools.missing);
else if (!node.startsWith('20.')) t.plan(0, `the Node 20 base is made with this machine's Node headers; this machine runs Node ${node}`);
else if (!existsSync(join(headers, 'node_version.h'))) t.plan(0, `no Node headers at ${headers} to lay out in the base as the official image has them`);
else await imageTests(buildah(cacheFolder()));

async function imageTests(b: Buildah): Promise<void> {
  const timings: string[] = [];
  const timed = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    const start = Date.now();
    const value = await work();
    timings.push(`${what} ${((Date.now() - start) / 1000).toFixed(1)} s`);
    return value;
  };
  t.teardown(() => t.comment(`image test: ${timings.join('; ')}`));
  const pypi = await reachable('https://pypi.org/simple/aiograpi/'); // asked first: the root test ends when no subtest is pending
  // The storage is this test's own: working containers left there are a killed run's, never in use.
  await b.run(['rm', '--all']);
  let image = '';
  await t.test('the Node 20 base is made and the runtime target builds on it', async (t) => {
    await timed('base', () => makeBase(b, node, headers));
    image = await timed('runtime build', () => build(b, 'runtime'));
    t.ok(image);
  });
  if (!image) return;

  await t.test('the runtime image: non-root, /data a volume, a HEALTHCHECK on /ready, OCI labels', async (t) => {
    const config = JSON.parse(await b.run(['inspect', '--type', 'image', image])) as ImageInspect;
    const docker = config.Docker.config;
    t.equal(docker.User, 'node', "runs as the base image's node user");
    t.ok(docker.Volumes && '/data' in docker.Volumes, 'the data folder is a volume');
    t.match(docker.Healthcheck?.Test?.join(' ') ?? '', /\/ready/, 'the health check asks /ready');
    t.same(docker.Entrypoint, ['node', 'bin/socialgate.js', 'serve']);
    t.equal(docker.Labels?.['org.opencontainers.image.title'], 'socialgate');
    t.match(docker.Labels?.['org.opencontainers.image.revision'] ?? '', /^[0-9a-f]{40}$/, 'the commit it was built from');
    t.notOk(
      docker.Env.some((e) => /CA_CERTS|PIP_CERT/.test(e)),
      "the build's CA is not left in the environment",
    );
    timings.push(`runtime image ${await sizeOf(b, image)}`);
  });

  await t.test('the entrypoint serves on a free port; a session survives a restart on the same volume', async (t) => {
    const data = tempFolder('socialgate-image-data-');
    chownSync(data, NODE_UID, NODE_UID);
    const first = await timed('first start to /ready', () => serveImage(b, image, data));
    let sid = '';
    try {
      const health = await fetch(`${first.url}/health`);
      t.equal(health.status, 200, '/health');
      const ready = await fetch(`${first.url}/ready`);
      t.equal(ready.status, 200, `/ready: ${await ready.clone().text()}`);
      const login = await fetch(`${first.url}/auth/login`, { method: 'POST', body: new URLSearchParams({ username: 'demo', password: 'demo-password' }) });
      t.equal(login.status, 200, 'a sandbox login');
      sid = (await login.json()) as string;
      t.equal((await fetch(`${first.url}/user?username=demo`, { headers: { 'x-session-id': sid } })).status, 200, 'the session works');
    } finally {
      await first.stop();
    }
    const key = join(data, 'session.key');
    t.equal(statSync(key).uid, NODE_UID, 'the key file was made by the node user, not root');
    t.equal(statSync(key).mode & 0o777, 0o600);
    t.ok(
      readdirSync(data).some((name) => name.endsWith('.sqlite')),
      'the session store is on the volume',
    );

    const second = await timed('restart to /ready', () => serveImage(b, image, data));
    try {
      t.equal((await fetch(`${second.url}/user?username=demo`, { headers: { 'x-session-id': sid } })).status, 200, 'the session survived the restart');
      t.equal(
        (await fetch(`${second.url}/user?username=demo`, { headers: { 'x-session-id': 'not-a-session' } })).status,
        401,
        'an unknown session is still refused',
      );
    } finally {
      await second.stop();
    }
  });

  const skip = pypi ? false : 'PyPI is not reachable from this machine: the aiograpi target was not built from it';
  await t.test('the aiograpi target: Python and aiograpi from PyPI at build time', { skip }, async (t) => {
    const real = await timed('aiograpi build', () => build(b, 'aiograpi'));
    const version = (await runIn(b, real, ['/opt/aiograpi/bin/python', '-c', 'import importlib.metadata as m; print(m.version("aiograpi"))'])).trim();
    t.equal(version, '1.0.9', 'the default AIOGRAPI_VERSION is installed');
    timings.push(`aiograpi image ${await sizeOf(b, real)}`);
  });

  const standin = pypi ? 'PyPI is reachable: the target was built from it above' : false;
  await t.test('the aiograpi target from a stand-in index: the same pip install, then it serves on --upstream aiograpi', { skip: standin }, async (t) => {
    const index = await serveStandinIndex();
    t.teardown(index.close);
    const image = await timed('aiograpi (stand-in) build', () => build(b, 'aiograpi', ['--build-arg', `PIP_INDEX_URL=${index.url}`]));
    const config = JSON.parse(await b.run(['inspect', '--type', 'image', image])) as ImageInspect;
    t.ok(config.Docker.config.Env.includes('SOCIALGATE_UPSTREAM=aiograpi'), 'the image is pointed at the aiograpi upstream');
    const data = tempFolder('socialgate-image-aiograpi-');
    chownSync(data, NODE_UID, NODE_UID);
    const service = await timed('aiograpi start to /ready', () => serveImage(b, image, data));
    try {
      const deps = (await (await fetch(`${service.url}/deps`)).json()) as Record<string, string>;
      t.equal(deps.aiograpi, '1.0.9', 'the sidecar runs the library pip installed');
      const login = await fetch(`${service.url}/auth/login`, { method: 'POST', body: new URLSearchParams({ username: 'demo', password: 'demo-password' }) });
      t.equal(login.status, 200, 'a login through the sidecar');
    } finally {
      await service.stop();
    }
    timings.push(`aiograpi image ${await sizeOf(b, image)}`);
  });
}

interface ImageInspect {
  Docker: {
    config: {
      User: string;
      Env: string[];
      Entrypoint: string[];
      Volumes?: Record<string, unknown>;
      Labels?: Record<string, string>;
      Healthcheck?: { Test?: string[] };
    };
  };
}

async function build(b: Buildah, target: string, extra: readonly string[] = []): Promise<string> {
  const tag = `localhost/socialgate-test:${target}`;
  const sha = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  const secret = CA ? ['--secret', `id=ca,src=${CA}`] : [];
  await b.run([
    'bud',
    '--isolation',
    'chroot',
    '--layers',
    '--pull=never',
    '--format',
    'docker',
    ...secret,
    '--build-arg',
    `GIT_SHA=${sha}`,
    ...extra,
    '--target',
    target,
    '-t',
    tag,
    root,
  ]);
  return tag;
}

async function sizeOf(b: Buildah, image: string): Promise<string> {
  const [entry] = JSON.parse(await b.run(['images', '--json', image])) as { size?: string }[];
  return entry?.size ?? 'size unknown';
}

/** A command in a fresh container of `image`, its output; the container is removed after. */
async function runIn(b: Buildah, image: string, command: readonly string[]): Promise<string> {
  const ctr = (await b.run(['from', '--pull=never', image])).trim();
  try {
    return await b.run(['run', '--isolation', 'chroot', ctr, '--', ...command]);
  } finally {
    await b.run(['rm', ctr]);
  }
}

/** The image's own entrypoint in a fresh container, on a free loopback port, `data` as /data; ready once /ready answers 200. */
async function serveImage(b: Buildah, image: string, data: string) {
  const config = JSON.parse(await b.run(['inspect', '--type', 'image', image])) as ImageInspect;
  const ctr = (await b.run(['from', '--pull=never', image])).trim();
  // buildah run gives an image's VOLUME a folder of the container's own, which hides a -v mount on
  // the same path: the working container forgets the declaration (the image keeps it, checked above).
  await b.run(['config', '--volume', '/data-', ctr]);
  const port = await freePort();
  const service = b.start([
    'run',
    '--isolation',
    'chroot',
    '--env',
    `PORT=${port}`,
    '--env',
    'HOST=127.0.0.1',
    '-v',
    `${data}:/data`,
    ctr,
    '--',
    ...config.Docker.config.Entrypoint,
  ]);
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await service.stop();
    await b.run(['rm', ctr]);
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (service.child.exitCode !== null) break;
    const ready = await fetch(`${url}/ready`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ready) return { url, stop };
    if (Date.now() > deadline) break;
    await sleep(100);
  }
  await stop();
  throw new Error(`the image did not answer /ready on port ${port}: ${service.output()}`);
}
