// Real bytes for the sandbox's files: a baseline JPEG, an H.264 MP4 (I_PCM frame) and an MP3 of
// silence, generated here so no binary assets are shipped. Each key (a media pk) gets its own
// colour, and the same key always yields the same bytes.
import { hash32 } from './prng.js';
import { mp4Bytes } from './mp4.js';

export type FileKind = 'jpeg' | 'mp4' | 'mp3';
export const MEDIA_HOST = 'https://media.sandbox.invalid';
export const EXTENSION: Readonly<Record<FileKind, string>> = { jpeg: 'jpg', mp4: 'mp4', mp3: 'mp3' };

const cache = new Map<string, Buffer>();

/**
 * The bytes the sandbox serves for a file of `kind` belonging to `key` (a pk or any label): a copy
 * (callers may change it) on its own ArrayBuffer, as Blob and fetch bodies want.
 */
export function sandboxFileBytes(kind: FileKind, key = 'sandbox'): Buffer<ArrayBuffer> {
  const cacheKey = `${kind}:${key}`;
  let bytes = cache.get(cacheKey);
  if (!bytes) {
    const rgb = colourOf(key);
    bytes = kind === 'jpeg' ? jpegBytes(64, 64, rgb) : kind === 'mp4' ? mp4Bytes(rgb) : mp3Bytes();
    if (cache.size > 1000) cache.clear();
    cache.set(cacheKey, bytes);
  }
  return Buffer.from(bytes);
}

/** World URLs: the sandbox hands these out and serves their bytes on by-URL downloads. */
export const mediaUrls = {
  image: (key: string) => `${MEDIA_HOST}/i/${key}.jpg`,
  video: (key: string) => `${MEDIA_HOST}/v/${key}.mp4`,
  audio: (key: string) => `${MEDIA_HOST}/a/${key}.mp3`,
};

export function parseMediaUrl(url: string): { kind: FileKind; key: string } | null {
  const match = /^https:\/\/media\.sandbox\.invalid\/([iva])\/([A-Za-z0-9_.-]+)\.(jpg|mp4|mp3)(?:\?.*)?$/.exec(url);
  if (!match) return null;
  const kind = ({ i: 'jpeg', v: 'mp4', a: 'mp3' } as const)[match[1] as 'i' | 'v' | 'a'];
  return EXTENSION[kind] === match[3] ? { kind, key: match[2] } : null;
}

function colourOf(key: string): [number, number, number] {
  const h = hash32(key);
  return [64 + (h & 0x7f), 64 + ((h >>> 8) & 0x7f), 64 + ((h >>> 16) & 0x7f)];
}

// -- JPEG: baseline, YCbCr 4:4:4, one flat colour, custom minimal Huffman tables -------------

function jpegBytes(width: number, height: number, [r, g, b]: [number, number, number]): Buffer {
  const ycc = [0.299 * r + 0.587 * g + 0.114 * b, 128 - 0.168736 * r - 0.331264 * g + 0.5 * b, 128 + 0.5 * r - 0.418688 * g - 0.081312 * b].map((v) =>
    Math.round(Math.min(255, Math.max(0, v))),
  );
  const segments = [
    [0xff, 0xd8],
    [0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0],
    [0xff, 0xdb, 0, 67, 0, ...new Array(64).fill(1)],
    [0xff, 0xc0, 0, 17, 8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0],
    [0xff, 0xc4, 0, 49, 0x00, 0, 0, 0, 12, ...new Array(12).fill(0), ...Array.from({ length: 12 }, (_, i) => i), 0x10, 1, ...new Array(15).fill(0), 0],
    [0xff, 0xda, 0, 12, 3, 1, 0, 2, 0, 3, 0, 0, 63, 0],
  ];
  return Buffer.concat([...segments.map((s) => Buffer.from(s)), scanData((width / 8) * (height / 8), ycc), Buffer.from([0xff, 0xd9])]);
}

/** Every block is flat, so each carries only a DC difference (first block per component) and EOB. */
function scanData(mcus: number, ycc: number[]): Buffer {
  const bits = new BitWriter();
  for (let m = 0; m < mcus; m++) {
    for (const value of ycc) {
      const diff = m === 0 ? 8 * (value - 128) : 0;
      const size = diff === 0 ? 0 : Math.floor(Math.log2(Math.abs(diff))) + 1;
      bits.write(size, 4);
      if (size > 0) bits.write(diff > 0 ? diff : diff + (1 << size) - 1, size);
      bits.write(0, 1); // EOB
    }
  }
  return bits.finish();
}

class BitWriter {
  private readonly bytes: number[] = [];
  private acc = 0;
  private count = 0;
  write(value: number, length: number): void {
    for (let i = length - 1; i >= 0; i--) {
      this.acc = (this.acc << 1) | ((value >> i) & 1);
      if (++this.count === 8) this.flush();
    }
  }
  finish(): Buffer {
    while (this.count !== 0) this.write(1, 1);
    return Buffer.from(this.bytes);
  }
  private flush(): void {
    this.bytes.push(this.acc);
    if (this.acc === 0xff) this.bytes.push(0); // byte stuffing
    this.acc = 0;
    this.count = 0;
  }
}

// -- MP3: MPEG-1 Layer III frames of silence (all-zero side info and main data) --------------

function mp3Bytes(): Buffer {
  const frame = Buffer.alloc(417);
  frame.set([0xff, 0xfb, 0x90, 0xc0]); // 128 kbit/s, 44.1 kHz, mono, no CRC
  return Buffer.concat(new Array(24).fill(frame));
}
