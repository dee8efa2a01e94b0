// The deployment files without containers: the systemd unit passes `systemd-analyze
// verify` with nothing to say, the nginx site example and the compose balancer pass `nginx -t`
// (Debian's packages, installed by test/support/debian-tools.sh when missing), compose.yaml passes
// `docker compose config` (or Debian's docker-compose where the client has no compose plugin) and
// says what the deployment needs; and `npm ci --omit=dev` on a clone that was never built stops with
// the production install's instructions instead of `tsc: not found`.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ensureDeployTools } from '../support/image.js';
import { tempFolder } from '../support/process.js';
import { ROOT } from '../helpers/root.js';

const root = ROOT;
const deploy = (path: string) => join(root, 'deploy', path);
const run = (command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  spawnSync(command, args, { encoding: 'utf8', timeout: 60_000, ...options });

const tools = ensureDeployTools();
if ('missing' in tools) t.plan(0, tools.missing);
else {
  systemdUnit();
  nginxConfigs();
  composeFile();
}
productionInstall();

function systemdUnit(): void {
  t.test('the systemd unit verifies with no warning', async (t) => {
    const dir = tempFolder('socialgate-unit-');
    // a template needs an instance name to be verified: the port
    copyFileSync(deploy('systemd/socialgate@.service'), join(dir, 'socialgate@8000.service'));
    const result = run('systemd-analyze', ['verify', join(dir, 'socialgate@8000.service')], { cwd: dir });
    t.equal(result.status, 0, result.stderr);
    t.equal(`${result.stdout}${result.stderr}`.trim(), '', 'no unknown key, bad value or missing program');
    const unit = readFileSync(deploy('systemd/socialgate@.service'), 'utf8');
    t.match(unit, /^User=socialgate$/m, 'not root');
    t.match(unit, /^Environment=SOCIALGATE_SESSION_KEY_FILE=%d\/session\.key$/m, 'the key as a credential, not in the environment');
  });
}

/** An nginx prefix holding `site` (with replacements) inside a minimal main config, and the shared locations. */
function nginxPrefix(site: string, replace: readonly [string | RegExp, string][]): string {
  const dir = tempFolder('socialgate-nginx-');
  mkdirSync(join(dir, 'snippets'));
  mkdirSync(join(dir, 'logs'));
  copyFileSync(deploy('nginx/socialgate-locations.conf'), join(dir, 'snippets', 'socialgate-locations.conf'));
  let text = readFileSync(deploy(site), 'utf8');
  for (const [from, to] of replace) text = text.replaceAll(from, to);
  writeFileSync(join(dir, 'site.conf'), text);
  writeFileSync(join(dir, 'nginx.conf'), `pid ${dir}/nginx.pid;\nerror_log ${dir}/logs/error.log;\nevents {}\nhttp {\n  include site.conf;\n}\n`);
  return dir;
}

function nginxTest(dir: string) {
  return run('nginx', ['-t', '-p', dir, '-c', join(dir, 'nginx.conf')]);
}

function nginxConfigs(): void {
  t.test('the nginx site example: TLS, sticky by session, streams unbuffered, large uploads; nginx -t passes', async (t) => {
    const certs = tempFolder('socialgate-tls-');
    const made = run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=api.example.com',
      '-keyout',
      join(certs, 'key.pem'),
      '-out',
      join(certs, 'cert.pem'),
    ]);
    t.equal(made.status, 0, `a throwaway certificate for the example's paths: ${made.stderr}`);
    const dir = nginxPrefix('nginx/socialgate-site.conf', [
      ['/etc/letsencrypt/live/api.example.com/fullchain.pem', join(certs, 'cert.pem')],
      ['/etc/letsencrypt/live/api.example.com/privkey.pem', join(certs, 'key.pem')],
      ['/var/log/nginx/', `${certs}/`],
    ]);
    const result = nginxTest(dir);
    t.equal(result.status, 0, result.stderr);
    const site = readFileSync(deploy('nginx/socialgate-site.conf'), 'utf8');
    const locations = readFileSync(deploy('nginx/socialgate-locations.conf'), 'utf8');
    t.match(site, /listen 443 ssl/);
    t.match(site, /hash \$http_x_session_id\$arg_sessionid consistent;/, 'routed by the session header');
    t.match(locations, /location ~ \^\/\(events\|console\/events\|mcp\)\$ \{[^}]*proxy_buffering off;/, 'event streams and /mcp unbuffered');
    t.match(locations, /client_max_body_size 2048m;/, "the service's own upload limit, not nginx's 1m");
  });

  t.test('the compose balancer passes nginx -t with its instances pointed at loopback', async (t) => {
    const dir = nginxPrefix('nginx/compose-balancer.conf', [
      ['socialgate-1:8000', '127.0.0.1:8000'],
      ['socialgate-2:8000', '127.0.0.1:8001'],
      ['/var/log/nginx/', 'logs/'],
    ]);
    const result = nginxTest(dir);
    t.equal(result.status, 0, result.stderr);
  });

  t.test('a broken site fails nginx -t (the check can fail)', async (t) => {
    const dir = nginxPrefix('nginx/compose-balancer.conf', [['proxy_buffering off;', 'proxy_buffering sometimes;']]);
    t.not(nginxTest(dir).status, 0);
  });
}

interface ComposeService {
  environment?: Record<string, string>;
  secrets?: (string | { source: string })[];
  volumes?: (string | { source?: string; target: string })[];
  healthcheck?: { test: string[] };
  profiles?: string[];
}

/** `docker compose config` where the client has the compose plugin, Debian's docker-compose otherwise. */
function composeConfig(env: NodeJS.ProcessEnv, extra: readonly string[] = []) {
  const plugin = run('docker', ['compose', 'version']).status === 0;
  const [command, args] = plugin ? ['docker', ['compose']] : ['docker-compose', []];
  return run(command, [...args, '-f', join(root, 'compose.yaml'), ...extra, 'config'], { cwd: root, env: { ...process.env, ...env } });
}

function composeFile(): void {
  t.test('compose.yaml: Redis, PostgreSQL as a profile, two instances with one key, a balancer; config validates', async (t) => {
    const keyFile = join(tempFolder('socialgate-compose-'), 'session.key');
    writeFileSync(keyFile, 'x'.repeat(44), { mode: 0o600 });
    const result = composeConfig({ SOCIALGATE_SESSION_KEY_PATH: keyFile });
    t.equal(result.status, 0, result.stderr);
    const config = parse(result.stdout) as { services: Record<string, ComposeService>; secrets: Record<string, { file: string }> };
    // compose v2 leaves out a service whose profile is not active; Debian's v1 lists it with its profiles
    const always = Object.entries(config.services)
      .filter(([, service]) => !service.profiles?.length)
      .map(([name]) => name);
    t.same(always.sort(), ['balancer', 'redis', 'socialgate-1', 'socialgate-2'], 'PostgreSQL only with its profile');
    t.equal(config.secrets.session_key.file, keyFile);
    const instances = ['socialgate-1', 'socialgate-2'].map((name) => config.services[name]);
    for (const instance of instances) {
      t.equal(instance.environment?.SOCIALGATE_SESSION_KEY_FILE, '/run/secrets/session_key', 'the key from the secret');
      t.match(JSON.stringify(instance.secrets), /session_key/);
      t.equal(instance.environment?.SOCIALGATE_STORE, 'redis://redis:6379', 'one shared store');
    }
    const dataVolumes = instances.map((i) => JSON.stringify(i.volumes));
    t.not(dataVolumes[0], dataVolumes[1], 'each instance has its own data volume');
    for (const volumes of dataVolumes) t.match(volumes, /\/data/);
    t.ok(config.services.redis.healthcheck && config.services.balancer.healthcheck, 'health checks');

    const withPostgres = composeConfig({ SOCIALGATE_SESSION_KEY_PATH: keyFile }, ['--profile', 'postgres']);
    t.equal(withPostgres.status, 0, withPostgres.stderr);
    const postgres = (parse(withPostgres.stdout) as { services: Record<string, ComposeService> }).services.postgres;
    t.same(postgres?.profiles, ['postgres']);
    t.ok(postgres?.healthcheck);
  });
}

function productionInstall(): void {
  t.test('prepare: without dev dependencies, a clone never built stops with the production install; a built one is kept', async (t) => {
    const dir = tempFolder('socialgate-prepare-');
    writeFileSync(join(dir, 'package.json'), '{"name":"socialgate-copy","private":true}');
    const prepare = join(root, 'bin', 'prepare.js');
    const unbuilt = run(process.execPath, [prepare], { cwd: dir });
    t.equal(unbuilt.status, 1);
    t.match(unbuilt.stderr, /npm ci && npm prune --omit=dev/, 'names the install that works');
    t.notMatch(unbuilt.stderr, /tsc: not found/);
    mkdirSync(join(dir, 'dist', 'bin'), { recursive: true });
    writeFileSync(join(dir, 'dist', 'bin', 'cli.js'), '');
    writeFileSync(join(dir, 'dist', 'build-info.json'), '{"build_time":"2026-01-02T03:04:05.000Z"}');
    const built = run(process.execPath, [prepare], { cwd: dir });
    t.equal(built.status, 0, built.stderr);
    t.match(built.stderr, /keeping dist\/ as built at 2026-01-02T03:04:05\.000Z/);
  });
}
