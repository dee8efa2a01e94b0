// The named API keys, kept in the session store's own backend (the same SQLite file, Redis or
// PostgreSQL table) under a namespace of their own, so every instance on the store shares them and
// the session listing never meets them. A handful of keys: the set is one value, changed whole. A
// key itself is never kept: only its SHA-256, beside its name, scopes and limits (nothing secret).
import Keyv from 'keyv';
import type { KeyStore, StoredKey } from '../../engine/types.js';
import { adapterFor, disconnectKeyv } from './keyv-backends.js';
import { withinStoreTime } from './bounded.js';

const NAMESPACE = 'socialgate-keys';
const ENTRY = 'keys';

export async function openKeyStore(url: string, timeoutMs = 500): Promise<KeyStore> {
  const keyv = new Keyv<string>({ store: await adapterFor(url, timeoutMs), namespace: NAMESPACE, throwOnErrors: true });
  keyv.on('error', () => undefined); // surfaced through the failing call
  const network = /^(rediss?|postgres(ql)?):/.test(url);
  const bounded = <T>(what: string, call: Promise<T>): Promise<T> =>
    network ? withinStoreTime(`key store (${url.split(':')[0]})`, what, timeoutMs, call) : call;
  const read = async (): Promise<StoredKey[]> => {
    const text = await bounded('read', keyv.get(ENTRY));
    return typeof text === 'string' ? (JSON.parse(text) as StoredKey[]) : [];
  };
  // One writer at a time in this process; operators change keys one at a time across instances.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    all: read,
    change(edit) {
      const next = queue.then(async () => {
        const keys = edit(await read());
        await bounded('write', keyv.set(ENTRY, JSON.stringify(keys)));
        return keys;
      });
      queue = next.catch(() => undefined);
      return next;
    },
    close: () => disconnectKeyv(keyv),
  };
}
