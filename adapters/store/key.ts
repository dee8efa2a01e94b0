// The master key of the session store: SOCIALGATE_SESSION_KEY (32 bytes, hex or base64), a file named
// by SOCIALGATE_SESSION_KEY_FILE (a container secret, a systemd credential), or a key file
// `<dataDir>/session.key` made on first start with mode 0600 (exclusive create, so two processes
// starting together agree on one key). A data-folder key file others can read is refused; a named
// file's mode is its mounter's business (container secrets are mounted 0444 inside a private mount).
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface KeySource {
  /** SESSION_KEY from the settings (hex or base64 of 32 bytes). */
  readonly setting?: string;
  /** SESSION_KEY_FILE from the settings: a file holding the key in the same form. */
  readonly file?: string;
  readonly dataDir: string;
  /** Make the key file when it is missing (the server does; operator tools must not). */
  readonly create: boolean;
}

export const KEY_FILE = 'session.key';

export function loadSessionKey(source: KeySource): Buffer {
  if (source.setting && source.file) throw new Error('set SOCIALGATE_SESSION_KEY or SOCIALGATE_SESSION_KEY_FILE, not both');
  if (source.setting) return parseKey(source.setting, 'SOCIALGATE_SESSION_KEY');
  if (source.file) return readNamedKeyFile(source.file);
  const path = join(source.dataDir, KEY_FILE);
  const existing = readKeyFile(path);
  if (existing) return existing;
  if (!source.create) throw new Error(`no session key: set SOCIALGATE_SESSION_KEY or run the server once to create ${path}`);
  return createKeyFile(source.dataDir, path);
}

export function parseKey(text: string, name: string): Buffer {
  const value = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, /[-_]/.test(value) ? 'base64url' : 'base64');
  if (key.length !== 32) throw new Error(`${name} must be 32 bytes, written as 64 hex digits or base64 (e.g. openssl rand -base64 32)`);
  return key;
}

function readNamedKeyFile(path: string): Buffer {
  try {
    return parseKey(readFileSync(path, 'utf8'), `SOCIALGATE_SESSION_KEY_FILE (${path})`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code) throw new Error(`SOCIALGATE_SESSION_KEY_FILE names ${path}, which cannot be read (${code})`);
    throw error;
  }
}

function readKeyFile(path: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) {
    throw new Error(`${path} can be read by other users; run: chmod 600 ${path}`);
  }
  return parseKey(text, path);
}

/** Written whole to a private temp file, then linked into place: a reader never sees half a key. */
function createKeyFile(dir: string, path: string): Buffer {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(temp, key.toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
  try {
    chmodSync(temp, 0o600); // the mode given to open() is masked by the umask
    linkSync(temp, path);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readKeyFile(path)!; // another process made it first
    throw error;
  } finally {
    unlinkSync(temp);
  }
}
