// Byte counts, for people and for streams: the sizes that limit messages name, and the stream stage
// that counts what passes and fails on the first chunk past a cap (multipart uploads, by-URL fetches).
import { Transform, type TransformCallback } from 'node:stream';

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KB`;
  return `${bytes} bytes`;
}

/** Counts bytes through; the chunk that passes the cap fails with `over()` and is never written. */
export class ByteCap extends Transform {
  bytes = 0;
  constructor(
    private readonly cap: number,
    private readonly over: () => Error,
    private readonly onChunk?: () => void,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    this.onChunk?.();
    if (this.bytes > this.cap) done(this.over());
    else done(null, chunk);
  }
}
