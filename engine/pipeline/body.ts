// Body parsing, chosen per route at boot: GET reads nothing; other methods read urlencoded forms
// and multipart (files streamed to disk by multer, never held in memory).
import { tmpdir } from 'node:os';
import multer from '@koa/multer';
import type { Middleware } from 'koa';
import { HttpMethodEnum, koaBody } from 'koa-body';
import { HttpError } from '../http-error.js';
import type { RouteSpec, UploadedFile } from '../types.js';
import type { RequestState } from './request.js';

export interface BodyLimits {
  /** Largest accepted upload, in bytes (per file). */
  readonly fileBytes: number;
  /** Largest urlencoded form, in bytes. */
  readonly formBytes: number;
}

type Parse = (ctx: Parameters<Middleware>[0], state: RequestState) => Promise<void>;

export function bodyParserFor(route: RouteSpec, limits: BodyLimits): Parse | undefined {
  if (route.method === 'GET') return undefined;
  const form = koaBody({ multipart: false, json: false, text: false, urlencoded: true, formLimit: limits.formBytes, parsedMethods: [HttpMethodEnum.POST, HttpMethodEnum.PATCH, HttpMethodEnum.DELETE] });
  const multipart = multipartFor(route, limits);
  return async (ctx, state) => {
    if (ctx.is('multipart/form-data')) return multipart(ctx, state);
    await form(ctx, async () => undefined);
  };
}

function multipartFor(route: RouteSpec, limits: BodyLimits): Parse {
  const fileParams = route.params.filter((p) => p.type === 'file');
  const upload = multer({ dest: tmpdir(), limits: { fileSize: limits.fileBytes, fieldSize: limits.formBytes } });
  const fields = fileParams.map((p) => ({ name: p.name, maxCount: p.repeated ? 20 : 1 }));
  // fields([]) is multer's text-only form: any file part is an unexpected field.
  const middleware = upload.fields(fields);
  return async (ctx, state) => {
    try {
      await middleware(ctx as never, async () => undefined);
    } catch (error) {
      throw multipartError(error as { code?: string; field?: string; message: string });
    } finally {
      // Collected even when multer fails part-way, so no temp file outlives the request.
      state.files = collectFiles(ctx);
      state.defer(() => removeFiles(state.files));
    }
  };
}

function collectFiles(ctx: Parameters<Middleware>[0]): UploadedFile[] {
  const groups = (ctx as unknown as { files?: Record<string, multer.File[]> }).files ?? {};
  return Object.values(groups).flat().map((f) => ({ field: f.fieldname, path: f.path, originalName: f.originalname, mimeType: f.mimetype, size: f.size }));
}

async function removeFiles(files: readonly UploadedFile[]): Promise<void> {
  const { rm } = await import('node:fs/promises');
  await Promise.all(files.map((f) => rm(f.path, { force: true })));
}

function multipartError(error: { code?: string; field?: string; message: string }): HttpError {
  const field = error.field ?? 'file';
  if (error.code === 'LIMIT_FILE_SIZE') return new HttpError(413, `File field ${field} is larger than the upload limit`, { excType: 'PayloadTooLarge', errors: [{ param: field, problem: 'file too large' }] });
  if (error.code === 'LIMIT_UNEXPECTED_FILE') return new HttpError(422, `Unexpected file field ${field}`, { excType: 'ValidationError', errors: [{ param: field, problem: 'not a file field of this route' }] });
  if (error.code?.startsWith('LIMIT_')) return new HttpError(413, `Multipart limit exceeded: ${error.message}`, { excType: 'PayloadTooLarge' });
  return new HttpError(400, `Malformed multipart body: ${error.message}`, { excType: 'BadRequest' });
}
