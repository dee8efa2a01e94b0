// The named API keys' routes (manifest/keys.yaml): operator scope only; the ring (engine/keys.ts)
// keeps them hashed in the key store and answers a new key once.
import { keyView } from '../../engine/keys.js';
import { serviceError } from './errors.js';
import type { KeyScope, Plugin, PluginInput } from '../../engine/types.js';

const plugin = (handle: (input: PluginInput) => Promise<unknown>): Plugin => ({ uses: [], handle });
const list = (value: unknown): string[] | undefined => {
  const items = Array.isArray(value) ? value.map(String).filter(Boolean) : [];
  return items.length ? items : undefined;
};

export const keyPlugins: Readonly<Record<string, Plugin>> = Object.freeze({
  'keys.list': plugin(async ({ services }) => services.keys.ring.list()),
  'keys.create': plugin(async ({ input, services }) => {
    const { key, record } = await services.keys.ring.add({
      name: String(input.name),
      scopes: list(input.scopes) as KeyScope[],
      accounts: list(input.accounts),
      pools: list(input.pools),
    });
    return { ...keyView(record), key };
  }),
  'keys.revoke': plugin(async ({ input, services }) => {
    if (!(await services.keys.ring.revoke(String(input.name)))) throw serviceError('ApiKeyNotFound', `No key named "${input.name}"`);
    return true;
  }),
});
