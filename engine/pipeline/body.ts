// Body parsing, chosen per route at boot: GET reads nothing; other methods read urlencoded forms
// and multipart (files streamed to disk by multer, never held in memory, each cut off at its
// field's cap while it streams in).
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import multer from '@koa/multer';
import type { Middleware } from 'koa';
import { form as parseForm } from 'co-body';
import { ByteCap, formatBytes } from '../bytes.js';
import type { HttpError } from '../http-error.js';
import { invalidParams, serviceError } from '../service-errors.js';
import type { ParamSpec, RouteSpec, UploadedFile } from '../types.js';
import type { RequestState } from './request.js';

/** The most one file field may hold, and the words that say so in its 413. */
export interface FileCap {
  readonly bytes: number;
  /** e.g. "over the 32 MB limit for image files (UPLOAD_MAX_IMAGE_MB)". */
  readonly problem: string;
}

export interface BodyLimits {
  /** Largest accepted upload, in bytes (per file), whatever its field. */
  readonly fileBytes: number;
  /** Largest urlencoded form, in bytes. */
  readonly formBytes: number;
  /** A lower cap for one file parameter (injected: the upload plugins' per-kind limits). */
  readonly fileCap?: (param: ParamSpec) => FileCap | undefined;
}

type Context = Parameters<Middleware>[0];
type Parse = (ctx: Context, state: RequestState) => Promise<void>;
type Caps = ReadonlyMap<string, FileCap>;

export function bodyParserFor(route: RouteSpec, limits: BodyLimits): Parse | undefined {
  if (route.method === 'GET') return undefined;
  const multipart = multipartFor(route, limits);
  return async (ctx, state) => {
    if (ctx.is('multipart/form-data')) return multipart(ctx, state);
    if (!ctx.is('application/x-www-form-urlencoded')) return; // any other body carries no parameters
    // co-body directly, not through koa-body: koa-body validates its options with zod and loads
    // formidable, for a parser this service never asks it for (4 MB of the service's resident
    // memory at start; bench/sessions-scale.md).
    (ctx.request as { body?: unknown }).body = await parseForm(ctx.req, { limit: limits.formBytes }).catch((error: unknown) => {
      throw formError(error, limits);
    });
  };
}

/** Each file field's cap: its own (per kind) when lower than the global one. */
export function fieldCaps(fileParams: readonly ParamSpec[], limits: BodyLimits): Caps {
  const global: FileCap = { bytes: limits.fileBytes, problem: `over the ${formatBytes(limits.fileBytes)} upload limit (UPLOAD_MAX_MB)` };
  return new Map(
    fileParams.map((param) => {
      const own = limits.fileCap?.(param);
      return [param.name, own && own.bytes < global.bytes ? own : global];
    }),
  );
}

function multipartFor(route: RouteSpec, limits: BodyLimits): Parse {
  const fileParams = route.request.files;
  const caps = fieldCaps(fileParams, limits);
  // The storage engine is shared by the route's requests; each request hears of its own overflow.
  const overflows = new WeakMap<IncomingMessage, (error: CapExceeded) => void>();
  // multer's own per-file limit is one number for the route: the largest of its fields' caps.
  const largest = [...caps.values()].reduce((max, cap) => (cap.bytes > max.bytes ? cap : max), { bytes: 0, problem: '' });
  // multer hands the storage only the route's own fields (others are LIMIT_UNEXPECTED_FILE).
  const storage = cappedStorage(
    (field) => caps.get(field) ?? largest,
    (req, error) => overflows.get(req)?.(error),
  );
  const upload = multer({
    storage: storage as unknown as multer.StorageEngine,
    limits: { fileSize: caps.size ? largest.bytes : limits.fileBytes, fieldSize: limits.formBytes },
  });
  // fields([]) is multer's text-only form: every file part is an unexpected field.
  const middleware = upload.fields(fileParams.map((p) => ({ name: p.name, maxCount: p.repeated ? 20 : 1 })));
  return async (ctx, state) => {
    const overflow = new Promise<never>((_, reject) => overflows.set(ctx.req, reject));
    try {
      // multer answers an error only once the whole body has arrived; an overflow is answered now.
      await Promise.race([middleware(ctx as never, async () => undefined), overflow]);
    } catch (error) {
      throw error instanceof CapExceeded ? tooLarge(error.field, error.cap, EARLY) : multipartError(error as MulterFailure, caps);
    } finally {
      overflows.delete(ctx.req);
      // Collected even when multer fails part-way, so no temp file outlives the request.
      state.files = collectFiles(ctx);
      state.defer(() => removeFiles(state.files));
    }
  };
}

class CapExceeded extends Error {
  constructor(
    readonly field: string,
    readonly cap: FileCap,
  ) {
    super(`${field}: ${cap.problem}`);
  }
}

/** multer's storage contract as multer 2 calls it (its published types predate `file.stream`). */
interface Storage {
  _handleFile(
    req: IncomingMessage,
    file: { fieldname: string; stream: Readable },
    done: (error: Error | null, info?: { destination: string; filename: string; path: string; size: number }) => void,
  ): void;
  _removeFile(req: IncomingMessage, file: { path: string }, done: (error: Error | null) => void): void;
}

/**
 * multer storage writing each file under its field's cap. A file over its cap, or cut short by
 * an aborted request, is removed here before multer hears of it: multer forgets a failed file.
 */
function cappedStorage(capOf: (field: string) => FileCap, overflowed: (req: IncomingMessage, error: CapExceeded) => void): Storage {
  return {
    _handleFile(req, file, done) {
      const filename = randomBytes(16).toString('hex');
      const path = join(tmpdir(), filename);
      const cap = capOf(file.fieldname);
      const counter = new ByteCap(cap.bytes, () => new CapExceeded(file.fieldname, cap));
      pipeline(file.stream, counter, createWriteStream(path, { flags: 'wx', mode: 0o600 })).then(
        () => done(null, { destination: tmpdir(), filename, path, size: counter.bytes }),
        async (error: Error) => {
          await rm(path, { force: true });
          if (error instanceof CapExceeded) overflowed(req, error);
          done(error);
        },
      );
    },
    _removeFile(_req, file, done) {
      rm(file.path, { force: true }).then(() => done(null), done);
    },
  };
}

function collectFiles(ctx: Context): UploadedFile[] {
  const groups = (ctx as unknown as { files?: Record<string, multer.File[]> }).files ?? {};
  return Object.values(groups)
    .flat()
    .map((f) => ({ field: f.fieldname, path: f.path, originalName: f.originalname, mimeType: f.mimetype, size: f.size }));
}

async function removeFiles(files: readonly UploadedFile[]): Promise<void> {
  await Promise.all(files.map((f) => rm(f.path, { force: true })));
}

// An overflow is answered while the rest of the body is still on its way: closing the connection
// after the 413 stops it (kept alive, Node would read and discard every remaining byte).
const EARLY = { Connection: 'close' };

type MulterFailure = { code?: string; field?: string; message: string };

function multipartError(error: MulterFailure, caps: Caps): HttpError {
  const field = error.field ?? 'file';
  const cap = caps.get(field);
  if (error.code === 'LIMIT_FILE_SIZE' && cap) return tooLarge(field, cap);
  if (error.code === 'LIMIT_UNEXPECTED_FILE') return invalidParams([{ param: field, problem: 'not a file field of this route' }]);
  if (error.code?.startsWith('LIMIT_')) return serviceError('PayloadTooLarge', `Multipart limit exceeded: ${error.message}`);
  return serviceError('MalformedBody', `Malformed multipart body: ${error.message}`);
}

/** co-body's own failures (http-errors with a status) as the service's codes; anything else is ours to find. */
function formError(error: unknown, limits: BodyLimits): unknown {
  const status = (error as { status?: unknown }).status;
  if (status === 413) return serviceError('PayloadTooLarge', `The form is over the ${formatBytes(limits.formBytes)} limit`);
  if (typeof status === 'number' && status >= 400 && status < 500) return serviceError('MalformedBody', `Malformed form body: ${(error as Error).message}`);
  return error;
}

function tooLarge(field: string, cap: FileCap, headers?: Readonly<Record<string, string>>): HttpError {
  return serviceError('PayloadTooLarge', `File ${field} is too large: ${cap.problem}`, { errors: [{ param: field, problem: cap.problem }], headers });
}
