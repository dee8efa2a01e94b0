// upload.file: routes with multipart file parameters. The engine has already streamed each file
// to disk under its global cap; this checks each one's kind and per-kind size, then runs the
// route's calls with the checked paths.
import type { Plugin } from '../../engine/types.js';
import { transferSettingsFor } from '../../adapters/transfer/index.js';
import { finishBag, prepareUploads } from './prepare.js';

export const uploadFile: Plugin = {
  uses: [],
  async handle(input) {
    const settings = transferSettingsFor(input.services.config.extra);
    const prepared = await prepareUploads(input, settings);
    return input.invoke(finishBag(input, prepared));
  },
};
