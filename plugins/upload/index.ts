// The upload plugins, registered by the names the manifest's upload routes give.
import type { Plugin } from '../../engine/types.js';
import { uploadFile } from './file.js';
import { uploadUrl } from './url.js';

export const uploadPlugins: Readonly<Record<string, Plugin>> = Object.freeze({
  'upload.file': uploadFile,
  'upload.url': uploadUrl,
});

export { CENTRED, centreDecorations } from './decorations.js';
export { streamCapFor } from './limits.js';
