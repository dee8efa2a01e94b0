// Secrets the work store keeps (webhook secrets) are sealed with the session store's master key,
// through a subkey of their own, and bound to their context (e.g. the endpoint id), so a sealed
// value copied to another record does not open.
import { open, seal, subkey } from '../store/crypto.js';

export interface Sealer {
  seal(text: string, context: string): string;
  open(sealed: string, context: string): string;
}

export function sealerFor(masterKey: Buffer): Sealer {
  const key = subkey(masterKey, 'socialgate work secret v1');
  return {
    seal: (text, context) => seal(key, text, context),
    open: (sealed, context) => open(key, sealed, context),
  };
}
