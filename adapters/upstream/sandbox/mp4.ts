// A one-second, one-frame H.264 (baseline, 32x32) MP4. The frame is coded as I_PCM macroblocks,
// which hold raw samples, so no encoder is needed and any player decodes it.

const SPS = [0x67, 0x42, 0x00, 0x0a, 0xf9, 0x28, 0x80]; // 2x2 macroblocks, poc type 0, no VUI
const PPS = [0x68, 0xce, 0x38, 0x80];
const SLICE_HEADER = [0x65, 0x88, 0x84, 0x08, 0x68]; // IDR, I slice, qp delta 0, first mb_type I_PCM
const MB_HEADER = [0x0d, 0x00]; // mb_type I_PCM, then alignment
const MACROBLOCKS = 4;
const SIZE = 32;

export function mp4Bytes([r, g, b]: [number, number, number]): Buffer {
  const frame = sliceNal(r, g, b);
  const sample = Buffer.concat([u32(frame.length), frame]);
  const ftyp = box('ftyp', Buffer.from('isom'), u32(512), Buffer.from('isomiso2avc1mp41'));
  const probe = moov(sample.length, 0);
  const offset = ftyp.length + probe.length + 8;
  return Buffer.concat([ftyp, moov(sample.length, offset), box('mdat', sample)]);
}

function sliceNal(r: number, g: number, b: number): Buffer {
  // PCM samples are kept >= 16 so the payload never needs emulation-prevention bytes.
  const clamp = (v: number) => Math.round(Math.min(235, Math.max(16, v)));
  const y = clamp(16 + 0.257 * r + 0.504 * g + 0.098 * b);
  const cb = clamp(128 - 0.148 * r - 0.291 * g + 0.439 * b);
  const cr = clamp(128 + 0.439 * r - 0.368 * g - 0.071 * b);
  const parts: number[] = [...SLICE_HEADER];
  for (let mb = 0; mb < MACROBLOCKS; mb++) {
    if (mb > 0) parts.push(...MB_HEADER);
    for (let i = 0; i < 256; i++) parts.push(y);
    for (let i = 0; i < 64; i++) parts.push(cb);
    for (let i = 0; i < 64; i++) parts.push(cr);
  }
  parts.push(0x80); // rbsp trailing bits
  return Buffer.from(parts);
}

function moov(sampleSize: number, chunkOffset: number): Buffer {
  const matrix = Buffer.concat([u32(0x10000), u32(0), u32(0), u32(0), u32(0x10000), u32(0), u32(0), u32(0), u32(0x40000000)]);
  const mvhd = full('mvhd', 0, 0, u32(0), u32(0), u32(1000), u32(1000), u32(0x10000), u16(0x100), Buffer.alloc(10), matrix, Buffer.alloc(24), u32(2));
  const tkhd = full(
    'tkhd',
    0,
    3,
    u32(0),
    u32(0),
    u32(1),
    u32(0),
    u32(1000),
    Buffer.alloc(8),
    u16(0),
    u16(0),
    u16(0),
    u16(0),
    matrix,
    u32(SIZE << 16),
    u32(SIZE << 16),
  );
  const mdhd = full('mdhd', 0, 0, u32(0), u32(0), u32(1000), u32(1000), u16(0x55c4), u16(0));
  const hdlr = full('hdlr', 0, 0, u32(0), Buffer.from('vide'), Buffer.alloc(12), Buffer.from('VideoHandler\0'));
  const vmhd = full('vmhd', 0, 1, u16(0), u16(0), u16(0), u16(0));
  const dinf = box('dinf', full('dref', 0, 0, u32(1), full('url ', 0, 1)));
  const avcC = box(
    'avcC',
    Buffer.from([1, 0x42, 0x00, 0x0a, 0xff, 0xe1]),
    u16(SPS.length),
    Buffer.from(SPS),
    Buffer.from([1]),
    u16(PPS.length),
    Buffer.from(PPS),
  );
  const avc1 = box(
    'avc1',
    Buffer.alloc(6),
    u16(1),
    Buffer.alloc(16),
    u16(SIZE),
    u16(SIZE),
    u32(0x480000),
    u32(0x480000),
    u32(0),
    u16(1),
    Buffer.alloc(32),
    u16(0x18),
    u16(0xffff),
    avcC,
  );
  const stbl = box(
    'stbl',
    full('stsd', 0, 0, u32(1), avc1),
    full('stts', 0, 0, u32(1), u32(1), u32(1000)),
    full('stss', 0, 0, u32(1), u32(1)),
    full('stsc', 0, 0, u32(1), u32(1), u32(1), u32(1)),
    full('stsz', 0, 0, u32(0), u32(1), u32(sampleSize)),
    full('stco', 0, 0, u32(1), u32(chunkOffset)),
  );
  const trak = box('trak', tkhd, box('mdia', mdhd, hdlr, box('minf', vmhd, dinf, stbl)));
  return box('moov', mvhd, trak);
}

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([u32(body.length + 8), Buffer.from(type, 'latin1'), body]);
}

function full(type: string, version: number, flags: number, ...parts: Buffer[]): Buffer {
  return box(type, Buffer.from([version, (flags >> 16) & 0xff, (flags >> 8) & 0xff, flags & 0xff]), ...parts);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n & 0xffff);
  return b;
}
