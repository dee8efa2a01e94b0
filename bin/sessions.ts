// `socialgate sessions list` and `socialgate sessions revoke ID`: operate on the session store the
// environment names. Lists never show secrets: an id prefix, the account, state and last use.
import { loadConfig } from '../engine/config.js';
import type { SessionRecord } from '../engine/types.js';
import { openStore } from '../adapters/store/index.js';

export async function runSessions(argv: string[], out: (text: string) => void): Promise<number> {
  const [action, ...rest] = argv;
  const positional = rest.filter((arg) => !arg.startsWith('--'));
  const config = loadConfig(rest.filter((arg) => arg.startsWith('--')).flatMap((arg) => arg.split(/=(.*)/s, 2)).filter(Boolean));
  const store = await openStore(config);
  try {
    if (action === 'list') return await list(store.list(), out);
    if (action === 'revoke' && positional[0]) return await revoke(positional[0], store, out);
    out('usage: socialgate sessions list | socialgate sessions revoke ID [--store URL]\n');
    return 2;
  } finally {
    await store.close();
  }
}

async function list(records: AsyncIterable<SessionRecord>, out: (text: string) => void): Promise<number> {
  let count = 0;
  out(['ID PREFIX', 'ACCOUNT', 'STATE', 'LAST USED'].join('\t') + '\n');
  for await (const record of records) {
    count++;
    out([`${record.id.slice(0, 8)}…`, record.account.username || record.account.pk, record.state, new Date(record.lastUsedAt).toISOString()].join('\t') + '\n');
  }
  out(`${count} session(s)\n`);
  return 0;
}

async function revoke(id: string, store: Awaited<ReturnType<typeof openStore>>, out: (text: string) => void): Promise<number> {
  const matches: string[] = [];
  for await (const record of store.list()) if (record.id === id || (id.length >= 8 && record.id.startsWith(id))) matches.push(record.id);
  if (matches.length !== 1) {
    out(matches.length ? `${matches.length} sessions match "${id}"; give more of the id\n` : `no session matches "${id}"\n`);
    return 1;
  }
  await store.delete(matches[0]);
  out(`revoked ${matches[0].slice(0, 8)}…\n`);
  return 0;
}
