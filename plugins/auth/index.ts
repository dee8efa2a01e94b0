import type { Plugin } from '../../engine/types.js';
import { login } from './login.js';

export const authPlugins: Readonly<Record<string, Plugin>> = Object.freeze({ 'auth.login': login });
