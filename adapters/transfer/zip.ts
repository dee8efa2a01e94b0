// Album downloads: the files as one zip stream, built while it is sent (nothing assembled on
// disk or in memory). Media is already compressed, so entries are stored, not deflated.
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Archiver, ZipOptions } from 'archiver';
import type { StreamResult } from '../../engine/types.js';

/** archiver 7's own statConcurrency is missing from @types/archiver 8's ZipOptions. */
type ArchiverFactory = (format: 'zip', options: ZipOptions & { readonly statConcurrency?: number }) => Archiver;
let archiver: ArchiverFactory | undefined;

/**
 * archiver 7 is CommonJS with one exported factory (@types/archiver 8 describes v8's classes). It
 * is required by the first album download, not at start: with its stream libraries it holds about
 * 9 MB of resident memory (bench/sessions-scale.md) that a service never downloading an album
 * should not carry.
 */
function archiverFactory(): ArchiverFactory {
  archiver ??= createRequire(import.meta.url)('archiver') as ArchiverFactory;
  return archiver;
}

export function zipFiles(paths: readonly string[], filename: string): StreamResult {
  // One stat at a time: archiver queues an entry when its stat completes, so with its default four
  // in parallel an album's files could land in the zip out of their order.
  const archive = archiverFactory()('zip', { store: true, statConcurrency: 1 });
  const names = uniqueNames(paths);
  // file() opens each file lazily, when its turn comes, and reports a failure on the archive.
  for (const [i, file] of paths.entries()) archive.file(file, { name: names[i] });
  // archiver only warns about a file it cannot stat; an album with a missing file is a failure.
  archive.on('warning', (err) => archive.destroy(err));
  // finalize() resolves when the archive has been fully read; errors surface on the stream.
  void archive.finalize().catch(() => undefined);
  return { kind: 'stream', stream: archive, filename: filename.endsWith('.zip') ? filename : `${filename}.zip`, contentType: 'application/zip' };
}

/** Entry names from the files' base names, numbered when two files share one. */
export function uniqueNames(paths: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return paths.map((file) => {
    const base = path.basename(file);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    if (count === 0) return base;
    const ext = path.extname(base);
    return `${base.slice(0, base.length - ext.length)}-${count + 1}${ext}`;
  });
}
