// upload.url: the by/url upload routes. Each url parameter is fetched through the guarded fetcher
// into the request's private folder, checked like an upload, and its path replaces the URL.
import type { HttpError } from '../../engine/http-error.js';
import { serviceError } from '../../engine/service-errors.js';
import type { ParamSpec, Plugin, PluginInput } from '../../engine/types.js';
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fetchToFile, TransferError, transferSettingsFor, type FetchedFile, type TransferSettings } from '../../adapters/transfer/index.js';
import { checkFile, kindOf, maxBytesFor, type CheckedFile } from './limits.js';
import { finishBag, prepareUploads, removeLater, type Prepared } from './prepare.js';

export const uploadUrl: Plugin = {
  uses: [],
  async handle(input) {
    const settings = transferSettingsFor(input.services.config.extra);
    const prepared = new Map(await prepareUploads(input, settings));
    for (const param of input.route.params.filter((p) => p.type === 'url')) {
      const urls = urlsOf(input.input[param.name]);
      if (urls.length) prepared.set(param, await fetchAll(input, param, urls, settings));
    }
    return input.invoke(finishBag(input, prepared as Prepared));
  },
};

async function fetchAll(input: PluginInput, param: ParamSpec, urls: readonly string[], settings: TransferSettings): Promise<CheckedFile[]> {
  const dir = await input.workdir();
  const kind = kindOf(param);
  const checked: CheckedFile[] = [];
  for (const url of urls) {
    const fetched =
      (await fromUpstream(input, url, dir)) ??
      (await fetchToFile(url, { dir, settings: settings.fetch, maxBytes: maxBytesFor(kind, settings), signal: input.signal }).catch((err: unknown) => {
        throw refusal(param.name, err);
      }));
    removeLater(input)(fetched.path);
    checked.push(await checkFile(param.name, fetched, kind, settings, removeLater(input)));
  }
  return checked;
}

/** A URL of the upstream's own media host (the sandbox's) is its bytes, written without any network. */
async function fromUpstream(input: PluginInput, url: string, dir: string): Promise<FetchedFile | undefined> {
  const bytes = input.services.upstream?.mediaBytes?.(url);
  if (!bytes) return undefined;
  const path = join(dir, `upstream-${randomUUID()}`);
  await writeFile(path, bytes);
  return { path, size: bytes.length, url };
}

function urlsOf(value: unknown): string[] {
  if (typeof value === 'string' && value !== '') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string' && v !== '');
  return [];
}

/** Too large is a 413 wherever the bytes come from; every other refusal is a 422 that says why. */
function refusal(field: string, err: unknown): HttpError {
  if (!(err instanceof TransferError)) throw err;
  const extra = { reason: err.problem };
  if (err.problem === 'size') {
    return serviceError('PayloadTooLarge', `The file at ${field} is too large: ${err.message}`, { errors: [{ param: field, problem: err.message }], extra });
  }
  return serviceError('UrlNotFetched', `The URL in ${field} was not fetched: ${err.message}`, { errors: [{ param: field, problem: err.message }], extra });
}
