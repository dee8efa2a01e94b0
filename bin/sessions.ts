// `socialgate sessions list` and `socialgate sessions revoke ID`: operate on the session store the
// environment names, with its key (SOCIALGATE_SESSION_KEY, SOCIALGATE_SESSION_KEY_FILE or the data folder's key file; never
// created here). Lists never show secrets: an id prefix, the account, state and last use.
import { loadConfig } from '../engine/config.js';
import type { SessionRecord } from '../engine/types.js';
import { openStore } from '../adapters/store/index.js';

export async function runSessions(argv: string[], out: (text: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [action, ...rest] = argv;
  const { flags, positional } = splitArgs(rest);
  const config = loadConfig(flags, env);
  const store = await openStore(config, { createKey: false });
  try {
    if (action === 'list') return await list(store.list(), out);
    if (action === 'revoke' && positional[0]) return await revoke(positional[0], store, out);
    out('usage: socialgate sessions list | socialgate sessions revoke ID [--store URL]\n');
    return 2;
  } finally {
    await store.close();
  }
}

/** `--flag value` and `--flag=value` go to the config; everything else is positional. */
function splitArgs(args: readonly string[]): { flags: string[]; positional: string[] } {
  const flags: string[] = [];
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (!args[i].startsWith('--')) positional.push(args[i]);
    else if (args[i].includes('=') || i + 1 >= args.length) flags.push(args[i]);
    else flags.push(args[i], args[++i]);
  }
  return { flags, positional };
}

async function list(records: AsyncIterable<SessionRecord>, out: (text: string) => void): Promise<number> {
  let count = 0;
  out(['ID PREFIX', 'ACCOUNT', 'STATE', 'LAST USED'].join('\t') + '\n');
  for await (const record of records) {
    count++;
    out([`${record.id.slice(0, 8)}…`, record.account.username || record.account.pk || '?', stateOf(record), new Date(record.lastUsedAt).toISOString()].join('\t') + '\n');
  }
  out(`${count} session(s)\n`);
  return 0;
}

function stateOf(record: SessionRecord): string {
  const until = record.throttledUntil ?? 0;
  return record.state === 'throttled' && until > Date.now() ? `throttled until ${new Date(until).toISOString()}` : record.state;
}

/** A shorter prefix would match too many sessions to be a safe thing to revoke by. */
const MIN_PREFIX = 8;

async function revoke(id: string, store: Awaited<ReturnType<typeof openStore>>, out: (text: string) => void): Promise<number> {
  if (id.length < MIN_PREFIX) {
    out(`"${id}" is too short: give at least ${MIN_PREFIX} characters of the session id (as \`sessions list\` shows them)\n`);
    return 2;
  }
  const matches: string[] = [];
  for await (const record of store.list()) if (record.id.startsWith(id)) matches.push(record.id);
  if (matches.length !== 1) {
    out(matches.length ? `${matches.length} sessions match "${id}"; give more of the id\n` : `no session matches "${id}"\n`);
    return 1;
  }
  await store.delete(matches[0]);
  out(`revoked ${matches[0].slice(0, 8)}…\n`);
  return 0;
}
