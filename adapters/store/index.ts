// Opens the session store a config names. The one place that decides how records are encoded.
import type { Config, SessionStore } from '../../engine/types.js';
import { createStore } from './keyv.js';

export async function openStore(config: Config): Promise<SessionStore> {
  return createStore(config.store);
}
