// How a session record is turned into the string a store keeps. The default is plain JSON; the
// auth layer installs an encrypting codec so a store read without the key reveals no secret.
import type { SessionRecord } from '../../engine/types.js';

export interface SessionCodec {
  encode(record: SessionRecord): string;
  decode(text: string): SessionRecord;
}

export const jsonCodec: SessionCodec = {
  encode: (record) => JSON.stringify(record),
  decode: (text) => JSON.parse(text) as SessionRecord,
};
