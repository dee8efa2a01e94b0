// DNS resolution with the guard in the loop. The fetcher's agents connect through this lookup,
// so the address checked is the address connected to: no gap for a name that resolves once to a
// public address and again (DNS rebinding) to a private one.
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { checkAddress, isHostAllowListed, type AllowList } from './address-guard.js';
import { TransferError } from './errors.js';

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}
/** Resolve every address of a host (dns.lookup semantics, so /etc/hosts applies). */
export type Resolver = (host: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: Resolver = (host) => dns.promises.lookup(host, { all: true, verbatim: true });

/**
 * Resolve `host` and check every address it resolves to. A host name on the allow-list passes
 * whatever it resolves to; otherwise one refused address refuses the host (a name that mixes a
 * public and a private address must not get a second chance at the private one).
 */
export async function resolveChecked(host: string, allow: AllowList, resolve: Resolver = systemResolver): Promise<readonly ResolvedAddress[]> {
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await resolve(host);
  } catch (err) {
    throw new TransferError('network', `the host ${host} could not be resolved (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  if (addresses.length === 0) throw new TransferError('network', `the host ${host} has no address`);
  if (isHostAllowListed(host, allow)) return addresses;
  for (const { address } of addresses) {
    const verdict = checkAddress(address, allow);
    if (!verdict.allowed) throw new TransferError('address', `the host ${host} resolves to ${verdict.reason.replace(/^\S+ is /, `${address}, `)}`);
  }
  return addresses;
}

/**
 * A `lookup` for http(s).Agent that resolves through resolveChecked. `onRefusal` receives the
 * TransferError, because node-fetch keeps only the code of a connection error, not the error.
 */
export function guardedLookup(allow: AllowList, resolve: Resolver, onRefusal: (err: TransferError) => void): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(hostname, allow, resolve).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = family === 0 ? addresses : addresses.filter((a) => a.family === family);
        if (usable.length === 0) {
          callback(Object.assign(new Error(`no IPv${family} address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
        } else if (options.all) {
          (callback as unknown as (err: null, all: ResolvedAddress[]) => void)(null, [...usable]);
        } else {
          callback(null, usable[0].address, usable[0].family);
        }
      },
      (err: unknown) => {
        if (err instanceof TransferError) onRefusal(err);
        callback(Object.assign(err instanceof Error ? err : new Error(String(err)), { code: 'EREFUSEDBYGUARD' }), '', 0);
      },
    );
  };
}
