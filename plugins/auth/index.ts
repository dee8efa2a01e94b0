// The auth plugins, by the names manifest/auth.yaml uses.
import type { Plugin } from '../../engine/types.js';
import { challenge } from './challenge.js';
import type { PendingLogins } from './pending.js';
import { login, loginBySessionId } from './login.js';
import { relogin } from './relogin.js';
import { settings } from './settings.js';
import { totpCode } from './totp.js';

export const authPlugins: Readonly<Record<string, Plugin<PendingLogins>>> = Object.freeze({
  'auth.login': login,
  'auth.login_by_sessionid': loginBySessionId,
  'auth.settings': settings,
  'auth.relogin': relogin,
  'auth.challenge': challenge,
  'auth.totp_code': totpCode,
});
