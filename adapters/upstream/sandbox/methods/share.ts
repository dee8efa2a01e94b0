// Share links: aiograpi decodes them on the client (base64 of "<type>:<pk>"), so these helpers
// need no login, never reach the platform and are never throttled or faulted.
import { str } from '../args.js';
import { decodeShare, shareCodeFromUrl } from '../codes.js';
import type { MethodTable } from '../registry.js';

export const shareMethods: MethodTable = {
  share_code_from_url: { open: true, local: true, run: (_ctx, a) => shareCodeFromUrl(str(a.url, 'url')) },
  share_info: { open: true, local: true, run: (_ctx, a) => decodeShare(str(a.code, 'code')) },
  share_info_by_url: { open: true, local: true, run: (_ctx, a) => decodeShare(shareCodeFromUrl(str(a.url, 'url'))) },
};
