// How a session record becomes what a store keeps, and under which key. The plain JSON codec is
// for tests of the store itself; the service always runs the encrypting codec (crypto.ts), which
// also hashes the store key, because a session id is a secret too.
import type { SessionRecord } from '../../engine/types.js';

export interface SessionCodec {
  /** The store key for a session id. */
  key(id: string): string;
  encode(record: SessionRecord, key: string): string;
  /** Throws CodecError when the text cannot be read with this codec (another key, tampering). */
  decode(text: string, key: string): SessionRecord;
  /** A value only this codec's key makes and reads, kept once per store so that a second key is refused. */
  readonly marker?: { readonly key: string; make(): string; matches(text: string): boolean };
}

export class CodecError extends Error {
  override readonly name = 'CodecError';
}

export const jsonCodec: SessionCodec = {
  key: (id) => id,
  encode: (record) => JSON.stringify(record),
  decode: (text) => {
    try {
      return JSON.parse(text) as SessionRecord;
    } catch {
      throw new CodecError('session record is not JSON');
    }
  },
};
