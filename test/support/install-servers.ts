// Installs the database servers the store tests start (Debian's redis-server and PostgreSQL), the
// browser the /docs and /console tests drive (Debian's chromium) and the deployment tests' tools
// (buildah, debootstrap, nginx, docker-compose) before
// any test file runs, so that a first run's apt-get does not count against a file's tap timeout.
// `npm test` runs it (compiled) before tap; the tests install on their own too when run alone.
import { ensureRedisServer } from './redis.js';
import { installPostgres } from './postgres.js';
import { ensureChromium } from './chromium.js';
import { ensureDeployTools } from './image.js';

const started = Date.now();
ensureRedisServer();
const postgres = installPostgres();
if ('missing' in postgres) process.stderr.write(`store tests: ${postgres.missing}; test/adapters/store/postgres.test.ts will be skipped\n`);
const chromium = ensureChromium();
if ('missing' in chromium)
  process.stderr.write(`browser tests: ${chromium.missing}; test/engine/docs-browser.test.ts and test/plugins/console/browser.test.ts will be skipped\n`);
const deploy = ensureDeployTools();
if ('missing' in deploy) process.stderr.write(`deployment tests: ${deploy.missing}; test/deploy-*.test.ts will be skipped\n`);
process.stdout.write(`# store test servers, chromium and deployment tools checked in ${Date.now() - started} ms\n`);
