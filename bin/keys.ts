// `socialgate keys add NAME --scope read,write [--accounts A,B] [--pools P,Q]`, `keys list` and
// `keys revoke NAME`: the named API keys, on the key store beside the sessions the configuration
// names (--store, --data-dir, or their variables), so a running service sees a change within its
// session-record TTL. A new key is printed once; only its hash is kept.
import { loadConfig } from '../engine/config.js';
import { HttpError } from '../engine/http-error.js';
import { KeyRing } from '../engine/keys.js';
import { KEY_SCOPES, type KeyScope } from '../engine/types.js';
import { openKeyStore } from '../adapters/store/keys.js';
import { storeTimeoutMs } from '../adapters/store/index.js';

const USAGE = `usage: socialgate keys add NAME --scope read[,write,operator] [--accounts A,B] [--pools P,Q]
       socialgate keys list
       socialgate keys revoke NAME
options: --store URL  --data-dir DIR (the session store's; or SOCIALGATE_STORE, SOCIALGATE_DATA_DIR)
`;
const OWN_FLAGS = ['--scope', '--accounts', '--pools'];

export async function runKeys(argv: string[], out: (text: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [action, ...rest] = argv;
  const { own, config: configFlags, positional } = splitArgs(rest);
  const config = loadConfig(configFlags, env);
  const store = await openKeyStore(config.store, storeTimeoutMs(config.extra));
  const ring = new KeyRing(store, undefined, 0);
  try {
    if (action === 'list') return await list(ring, out);
    if (action === 'add' && positional.length === 1) return await add(ring, positional[0], own, out);
    if (action === 'revoke' && positional.length === 1) return await revoke(ring, positional[0], out);
    out(USAGE);
    return 2;
  } catch (error) {
    if (!(error instanceof HttpError) || error.status >= 500) throw error;
    out(`${error.message}\n`);
    return 1;
  } finally {
    await store.close();
  }
}

async function list(ring: KeyRing, out: (text: string) => void): Promise<number> {
  const keys = await ring.list();
  if (keys.length === 0) {
    out('no named keys (socialgate keys add NAME --scope read adds one)\n');
    return 0;
  }
  out(['NAME', 'SCOPES', 'ACCOUNTS', 'POOLS', 'CREATED'].join('\t') + '\n');
  for (const key of keys) {
    const cell = (value: unknown) => (Array.isArray(value) ? value.join(',') : 'any');
    out([key.name, cell(key.scopes), cell(key.accounts), cell(key.pools), key.created_at].join('\t') + '\n');
  }
  out(`${keys.length} key(s)\n`);
  return 0;
}

async function add(ring: KeyRing, name: string, own: Map<string, string>, out: (text: string) => void): Promise<number> {
  const scopes = listOf(own.get('--scope'));
  const unknown = scopes.filter((scope) => !KEY_SCOPES.includes(scope as KeyScope));
  if (scopes.length === 0 || unknown.length) {
    out(`--scope: one or more of ${KEY_SCOPES.join(', ')}, comma-separated${unknown.length ? ` (not ${unknown.join(', ')})` : ''}\n`);
    return 2;
  }
  const accounts = listOf(own.get('--accounts'));
  const pools = listOf(own.get('--pools'));
  const { key } = await ring.add({
    name,
    scopes: scopes as KeyScope[],
    accounts: accounts.length ? accounts : undefined,
    pools: pools.length ? pools : undefined,
  });
  out(`added key "${name}" (${scopes.join(', ')}); it is shown this once, store it now:\n${key}\n`);
  return 0;
}

async function revoke(ring: KeyRing, name: string, out: (text: string) => void): Promise<number> {
  if (!(await ring.revoke(name))) {
    out(`no key named "${name}" (socialgate keys list names them)\n`);
    return 1;
  }
  out(`revoked key "${name}"\n`);
  return 0;
}

const listOf = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** The keys' own flags, the configuration's (`--store URL` or `--store=URL`), and the positional words. */
function splitArgs(args: readonly string[]): { own: Map<string, string>; config: string[]; positional: string[] } {
  const own = new Map<string, string>();
  const config: string[] = [];
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [flag, inline] = arg.split(/=(.*)/s, 2);
    const value = inline ?? args[++i] ?? '';
    if (OWN_FLAGS.includes(flag)) own.set(flag, value);
    else config.push(flag, value);
  }
  return { own, config, positional };
}
