// Session records encrypted at rest: AES-256-GCM (node:crypto) with a fresh 96-bit IV per write and
// the store key as additional data, so a record moved to another key does not decrypt. Store keys
// are HMACs of the session id: a store read without the key reveals neither the records (settings,
// cookies, account) nor the ids that grant them. Two subkeys are derived from the one master key
// with HKDF, one per purpose.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { SessionRecord } from '../../engine/types.js';
import { CodecError, type SessionCodec } from './codec.js';

const VERSION = 'v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const MARKER_KEY = 'keycheck';
const MARKER_TEXT = 'socialgate session store';

export function encryptingCodec(masterKey: Buffer): SessionCodec {
  if (masterKey.length !== 32) throw new Error('the session key must be 32 bytes');
  const encKey = subkey(masterKey, 'socialgate session record v1');
  const idKey = subkey(masterKey, 'socialgate session id v1');
  return {
    key: (id) => 's:' + createHmac('sha256', idKey).update(id).digest('base64url'),
    encode: (record, key) => seal(encKey, JSON.stringify(record), key),
    decode: (text, key) => JSON.parse(open(encKey, text, key)) as SessionRecord,
    marker: {
      key: MARKER_KEY,
      make: () => seal(encKey, MARKER_TEXT, MARKER_KEY),
      matches: (text) => {
        try {
          return open(encKey, text, MARKER_KEY) === MARKER_TEXT;
        } catch {
          return false;
        }
      },
    },
  };
}

export function subkey(master: Buffer, info: string): Buffer {
  return Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), info, 32));
}

export function seal(key: Buffer, plaintext: string, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return VERSION + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

export function open(key: Buffer, text: string, aad: string): string {
  if (!text.startsWith(VERSION)) throw new CodecError('session record is not encrypted with this format');
  const raw = Buffer.from(text.slice(VERSION.length), 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new CodecError('session record is truncated');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new CodecError('session record does not decrypt with this key');
  }
}
