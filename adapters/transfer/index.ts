// Media transfer: the address guard, the guarded fetcher, content sniffing, settings, and the
// download helpers (content type by extension, zip stream) the engine's file shapes use.
export { checkAddress, isHostAllowListed, parseAllowList, EMPTY_ALLOW_LIST, type AllowList, type AddressVerdict } from './address-guard.js';
export { resolveChecked, guardedLookup, systemResolver, type Resolver, type ResolvedAddress } from './guarded-lookup.js';
export { fetchToFile, parseHttpUrl, type FetchOptions, type FetchedFile } from './fetcher.js';
export { formatBytes } from '../../engine/bytes.js';
export { sniffFile, checkKind, withExtension, type Sniffed, type KindVerdict } from './sniff.js';
export { CONTENT_KINDS, isContentKind, kindOfMime, mimeFitsKind, describeKind, type ContentKind } from './kinds.js';
export { transferSettingsFromEnv, transferSettingsFor, TRANSFER_DEFAULTS, type TransferSettings, type FetchSettings } from './settings.js';
export { TransferError, type TransferProblem } from './errors.js';
export { contentTypeFor } from './content-type.js';
export { zipFiles, uniqueNames } from './zip.js';
