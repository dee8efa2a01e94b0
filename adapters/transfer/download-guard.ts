// By-URL download routes hand the caller's URL to the upstream, which fetches it itself. Before
// that call, the URL must be http(s), its host one of the platform's media hosts, and every address
// the host resolves to a public one (unless allow-listed): otherwise a caller could make the
// server fetch from its own network and hand back what it finds.
import { invalidParams } from '../../engine/service-errors.js';
import type { InputBag, ResolveSpec, Resolver } from '../../engine/types.js';
import { isHostAllowListed, parseAllowList, type AllowList } from './address-guard.js';
import { parseHttpUrl } from './fetcher.js';
import { resolveChecked, systemResolver, type Resolver as DnsResolver } from './guarded-lookup.js';
import { TransferError } from './errors.js';

/** The platform's media hosts: where the URLs in its records point. */
export const PLATFORM_MEDIA_HOSTS = ['*.cdninstagram.com', '*.fbcdn.net', '*.instagram.com', 'instagram.com'];

export interface DownloadGuardOptions {
  /** Hosts a download URL may name (exact names or `*.suffix`). */
  readonly hosts: readonly string[];
  /** Addresses or hosts the address guard lets through (FETCH_ALLOW). */
  readonly allow: AllowList;
  /** Hosts that are the upstream's own and need no DNS (the sandbox's media host). */
  readonly trusted?: readonly string[];
  readonly resolve?: DnsResolver;
}

export function downloadGuard(options: DownloadGuardOptions): Resolver {
  const hosts = parseAllowList([...options.hosts]);
  const trusted = parseAllowList([...(options.trusted ?? [])]);
  return {
    uses: [],
    async resolve(input: InputBag, spec: ResolveSpec) {
      for (const name of spec.from) {
        const values = input[name];
        for (const value of Array.isArray(values) ? values : values === undefined ? [] : [values]) {
          await check(String(value), name, { hosts, trusted, allow: options.allow, resolve: options.resolve ?? systemResolver });
        }
      }
    },
  };
}

async function check(raw: string, param: string, o: { hosts: AllowList; trusted: AllowList; allow: AllowList; resolve: DnsResolver }): Promise<void> {
  try {
    const url = parseHttpUrl(raw);
    const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    if (isHostAllowListed(host, o.trusted)) return;
    if (!isHostAllowListed(host, o.hosts)) throw new TransferError('address', `${host} is not one of the platform's media hosts`);
    await resolveChecked(host, o.allow, o.resolve);
  } catch (error) {
    if (error instanceof TransferError) throw invalidParams([{ param, problem: `refused: ${error.message}` }]);
    throw error;
  }
}
