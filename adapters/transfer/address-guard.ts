// The address guard: a pure decision on one IP address (after DNS resolution) and the allow-list.
// Only ordinary global unicast passes; loopback, private, link-local, multicast, cloud-metadata and
// the other special ranges ipaddr.js knows are refused unless FETCH_ALLOW names them.
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

export interface AllowList {
  /** CIDR ranges permitted despite the guard (single addresses are /32 or /128). */
  readonly ranges: readonly (readonly [Address, number])[];
  /** Host names permitted whatever they resolve to: exact (`media.lan`) or a suffix (`*.lan`). */
  readonly hosts: readonly string[];
}

export const EMPTY_ALLOW_LIST: AllowList = { ranges: [], hosts: [] };

export type AddressVerdict = { readonly allowed: true } | { readonly allowed: false; readonly reason: string };

// Metadata services answer on addresses inside ranges that are refused anyway; naming them makes
// the refusal say what the caller actually hit.
const CLOUD_METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254', '192.0.0.192']);

const RANGE_WORDS: Readonly<Record<string, string>> = {
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  carrierGradeNat: 'a shared (carrier-grade NAT) address',
  private: 'a private address',
  uniqueLocal: 'a unique-local (private) address',
  reserved: 'a reserved address',
  ipv4Mapped: 'an IPv4-mapped address',
  rfc6145: 'an IPv4-translated address',
  rfc6052: 'a NAT64 address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
  deprecatedSiteLocal: 'a site-local address',
  ipv4Compatible: 'an IPv4-compatible address',
};

/** Decide whether the service may connect to `ip`. */
export function checkAddress(ip: string, allow: AllowList = EMPTY_ALLOW_LIST): AddressVerdict {
  const address = parseAddress(ip);
  if (address === undefined) return { allowed: false, reason: `${ip} is not an IP address` };
  if (isAllowListed(address, allow)) return { allowed: true };
  const shown = address.toString();
  if (CLOUD_METADATA.has(shown)) return { allowed: false, reason: `${shown} is a cloud metadata address` };
  const range = rangeOf(address);
  if (range === 'unicast') return { allowed: true };
  return { allowed: false, reason: `${shown} is ${RANGE_WORDS[range] ?? `a special-purpose (${range}) address`}` };
}

/** Whether a host name is on the allow-list by name (checked before resolution). */
export function isHostAllowListed(host: string, allow: AllowList): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return allow.hosts.some((entry) => (entry.startsWith('*.') ? name.endsWith(entry.slice(1)) : name === entry));
}

/**
 * Parse FETCH_ALLOW entries: CIDRs (`10.0.0.0/8`, `fc00::/7`), addresses (`127.0.0.1`, `::1`),
 * host names (`localhost`, `*.internal`). Throws on an entry that is none of these.
 */
export function parseAllowList(entries: readonly string[]): AllowList {
  const ranges: [Address, number][] = [];
  const hosts: string[] = [];
  for (const raw of entries.map((e) => e.trim()).filter((e) => e !== '')) {
    const entry = raw.replace(/^\[(.*)\]$/, '$1');
    if (entry.includes('/') && ipaddr.isValid(entry.split('/')[0])) ranges.push(parseRange(entry));
    else if (ipaddr.isValid(entry)) ranges.push(parseRange(`${entry}/${ipaddr.parse(entry).kind() === 'ipv4' ? 32 : 128}`));
    else if (/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(entry)) hosts.push(entry.toLowerCase());
    else throw new Error(`"${raw}" is not a CIDR, an IP address or a host name`);
  }
  return { ranges, hosts };
}

function parseRange(cidr: string): [Address, number] {
  try {
    const [address, bits] = ipaddr.parseCIDR(cidr);
    return [unmap(address), address.kind() === 'ipv6' && unmap(address).kind() === 'ipv4' ? bits - 96 : bits];
  } catch {
    throw new Error(`"${cidr}" is not a valid CIDR range`);
  }
}

function parseAddress(ip: string): Address | undefined {
  const bare = ip.replace(/^\[(.*)\]$/, '$1');
  if (!ipaddr.isValid(bare)) return undefined;
  // Four-part dotted decimal only: inet_aton forms (`0x7f.1`) are normalised by the URL parser
  // before they get here, and anything else is not an address a resolver returns.
  if (!bare.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(bare)) return undefined;
  return unmap(ipaddr.parse(bare));
}

/** IPv4-mapped IPv6 (::ffff:a.b.c.d) reaches the IPv4 address: judge it as that address. */
function unmap(address: Address): Address {
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (address as ipaddr.IPv6).toIPv4Address();
  }
  return address;
}

function rangeOf(address: Address): string {
  const range = address.range();
  // ::a.b.c.d (deprecated IPv4-compatible, ::/96) is "unicast" to ipaddr.js, but some stacks
  // route it to the IPv4 address; refuse it with its own name.
  if (address.kind() === 'ipv6' && range === 'unicast' && (address as ipaddr.IPv6).parts.slice(0, 6).every((p) => p === 0)) {
    return 'ipv4Compatible';
  }
  return range;
}

function isAllowListed(address: Address, allow: AllowList): boolean {
  return allow.ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits));
}
