// `socialgate sessions list|revoke|label|policy`: operate on the session store the environment names, with its
// key (SOCIALGATE_SESSION_KEY, SOCIALGATE_SESSION_KEY_FILE or the data folder's key file; never
// created here). Lists never show secrets: an id prefix (the shortest that names one session, and
// that `revoke` and `label` take back as printed), the account, the operator's label, the state as
// it is now, proxy host and last use.
import { loadConfig } from '../engine/config.js';
import { effectiveState, LABEL_MAX, proxyHost, uniquePrefixes } from '../engine/session-record.js';
import type { Config, SessionRecord, SessionStore } from '../engine/types.js';
import { openStore } from '../adapters/store/index.js';
import { frozenClasses } from '../plugins/policy/frozen.js';

type Out = (text: string) => void;
const USAGE = 'usage: socialgate sessions list | sessions revoke PREFIX | sessions label PREFIX [TEXT] | sessions policy PREFIX [--store URL]\n';

export async function runSessions(argv: string[], out: Out, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [action, ...rest] = argv;
  const { flags, positional } = splitArgs(rest);
  const config = loadConfig(flags, env);
  const store = await openStore(config, { createKey: false });
  try {
    if (action === 'list') return await list(store, out);
    if (action === 'revoke' && positional[0]) return await revoke(positional[0], store, out);
    if (action === 'policy' && positional[0]) return await policy(positional[0], store, config, out);
    if (action === 'label' && positional[0]) return await label(positional[0], positional.slice(1).join(' '), store, out);
    out(USAGE);
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

async function all(store: SessionStore): Promise<SessionRecord[]> {
  const records: SessionRecord[] = [];
  for await (const record of store.list()) records.push(record);
  return records;
}

/** Most recently used first; an empty store says so instead of printing a bare header. */
async function list(store: SessionStore, out: Out): Promise<number> {
  const records = (await all(store)).sort((a, b) => b.lastUsedAt - a.lastUsedAt);
  if (!records.length) {
    out('No sessions in this store. Log an account in with POST /auth/login (or the console).\n');
    return 0;
  }
  const prefixes = uniquePrefixes(
    records.map((r) => r.id),
    MIN_PREFIX,
  );
  const now = Date.now();
  out(['ID PREFIX', 'ACCOUNT', 'LABEL', 'STATE', 'PROXY', 'CREATED', 'LAST USED'].join('\t') + '\n');
  for (const record of records) {
    const cells = [
      prefixes.get(record.id)!,
      record.account.username || record.account.pk || '?',
      record.label || '-',
      stateOf(record, now),
      proxyHost(record.proxy) ?? '-',
      new Date(record.createdAt).toISOString(),
      new Date(record.lastUsedAt).toISOString(),
    ];
    out(cells.join('\t') + '\n');
  }
  out(`${records.length} session(s), most recently used first\n`);
  return 0;
}

function stateOf(record: SessionRecord, now: number): string {
  const state = effectiveState(record, now);
  const frozen = frozenClasses(record, now)
    .map((one) => `; ${one.action} frozen until ${new Date(one.until).toISOString()}`)
    .join('');
  return (state === 'throttled' ? `throttled until ${new Date(record.throttledUntil!).toISOString()}` : state) + frozen;
}

/** A shorter prefix would match too many sessions to be a safe thing to revoke by. */
const MIN_PREFIX = 8;

/** The one record a prefix names, or a line saying why not (and the exit code). */
async function named(id: string, store: SessionStore, out: Out): Promise<SessionRecord | number> {
  if (id.length < MIN_PREFIX) {
    out(`"${id}" is too short: give at least ${MIN_PREFIX} characters of the session id (as \`sessions list\` shows them)\n`);
    return 2;
  }
  const matches = (await all(store)).filter((record) => record.id.startsWith(id));
  if (matches.length === 1) return matches[0];
  out(matches.length ? `${matches.length} sessions match "${id}"; give more of the id\n` : `no session matches "${id}"\n`);
  return 1;
}

async function revoke(id: string, store: SessionStore, out: Out): Promise<number> {
  const record = await named(id, store, out);
  if (typeof record === 'number') return record;
  await store.delete(record.id);
  out(`revoked ${id} (${record.account.username || record.account.pk})\n`);
  return 0;
}

/** Sets the operator's label (an empty text clears it); a running service shows it once its cached record expires. */
async function label(id: string, text: string, store: SessionStore, out: Out): Promise<number> {
  const trimmed = text.trim();
  if (trimmed.length > LABEL_MAX) {
    out(`a label has at most ${LABEL_MAX} characters\n`);
    return 2;
  }
  const record = await named(id, store, out);
  if (typeof record === 'number') return record;
  const { label: _old, ...rest } = record;
  await store.set(trimmed ? { ...rest, label: trimmed } : rest);
  out(trimmed ? `labelled ${id} "${trimmed}"\n` : `label of ${id} cleared\n`);
  return 0;
}

/** The session's budgets, window and warm-up, from the counters every instance shares. */
async function policy(id: string, store: SessionStore, config: Config, out: Out): Promise<number> {
  const record = await named(id, store, out);
  if (typeof record === 'number') return record;
  const { printPolicy } = await import('../plugins/policy/cli.js');
  await printPolicy(record, config, out);
  return 0;
}
