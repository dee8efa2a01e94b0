// The address guard as a pure function over a table, and the DNS-resolving check with a table
// resolver: no test here opens a connection.
import t from 'tap';
import { checkAddress, parseAllowList, resolveChecked, isHostAllowListed, TransferError, type Resolver } from '../../../adapters/transfer/index.js';

const REFUSED: readonly [string, RegExp][] = [
  ['127.0.0.1', /loopback/],
  ['127.1.2.3', /loopback/],
  ['::1', /loopback/],
  ['[::1]', /loopback/],
  ['10.0.0.1', /private/],
  ['10.255.255.255', /private/],
  ['172.16.0.1', /private/],
  ['172.31.255.254', /private/],
  ['192.168.1.1', /private/],
  ['169.254.169.254', /cloud metadata/],
  ['169.254.170.2', /cloud metadata/],
  ['169.254.1.1', /link-local/],
  ['fe80::1', /link-local/],
  ['fc00::1', /unique-local/],
  ['fd12:3456::1', /unique-local/],
  ['fd00:ec2::254', /cloud metadata/],
  ['::ffff:127.0.0.1', /127\.0\.0\.1 is a loopback/],
  ['::ffff:7f00:1', /127\.0\.0\.1 is a loopback/],
  ['::ffff:10.0.0.1', /private/],
  ['::ffff:192.168.0.10', /private/],
  ['::ffff:169.254.169.254', /cloud metadata/],
  ['::127.0.0.1', /127\.0\.0\.1 is a loopback/],
  ['::7f00:1', /IPv4-compatible/],
  ['64:ff9b::7f00:1', /NAT64/],
  ['2002:7f00:1::', /6to4/],
  ['0.0.0.0', /unspecified/],
  ['::', /unspecified/],
  ['224.0.0.1', /multicast/],
  ['ff02::1', /multicast/],
  ['255.255.255.255', /broadcast/],
  ['100.64.0.1', /carrier-grade/],
  ['100.100.100.200', /cloud metadata/],
  ['192.0.2.1', /reserved/],
  ['not-an-ip', /not an IP address/],
  ['0x7f.1', /not an IP address/],
];

const ALLOWED = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.15.255.255', '172.32.0.1', '2606:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8'];

t.test('refused addresses say why', async (t) => {
  for (const [ip, reason] of REFUSED) {
    const verdict = checkAddress(ip);
    t.equal(verdict.allowed, false, `${ip} refused`);
    if (!verdict.allowed) t.match(verdict.reason, reason, `${ip}: ${verdict.reason}`);
  }
});

t.test('public unicast addresses pass', async (t) => {
  for (const ip of ALLOWED) t.same(checkAddress(ip), { allowed: true }, ip);
});

t.test('the allow-list opens exactly what it names', async (t) => {
  const allow = parseAllowList(['127.0.0.1', '10.0.0.0/8', 'fc00::/7', '[::1]', '::ffff:192.168.5.0/120']);
  const table: [string, boolean][] = [
    ['127.0.0.1', true],
    ['::ffff:127.0.0.1', true],
    ['127.0.0.2', false],
    ['10.20.30.40', true],
    ['11.0.0.1', true],
    ['172.16.0.1', false],
    ['fd00::5', true],
    ['::1', true],
    ['fe80::1', false],
    ['169.254.169.254', false],
    ['192.168.5.9', true],
    ['192.168.6.9', false],
  ];
  for (const [ip, allowed] of table) t.equal(checkAddress(ip, allow).allowed, allowed, `${ip} ${allowed ? 'allowed' : 'refused'}`);
});

t.test('allow-list entries are CIDRs, addresses or host names', async (t) => {
  const allow = parseAllowList(['localhost', '*.lan', ' ', 'Media.Example']);
  t.same(allow.hosts, ['localhost', '*.lan', 'media.example']);
  t.ok(isHostAllowListed('LOCALHOST', allow));
  t.ok(isHostAllowListed('nas.lan', allow));
  t.ok(isHostAllowListed('media.example.', allow));
  t.notOk(isHostAllowListed('lan', allow));
  t.notOk(isHostAllowListed('evil.example', allow));
  t.throws(() => parseAllowList(['10.0.0.0/33']), /not a valid CIDR/);
  t.throws(() => parseAllowList(['http://x']), /not a CIDR, an IP address or a host name/);
});

const TABLE: Readonly<Record<string, readonly string[]>> = {
  'public.test': ['93.184.216.34'],
  'loop.test': ['127.0.0.1'],
  'loop6.test': ['::1'],
  'ten.test': ['10.1.2.3'],
  'one72.test': ['172.16.9.9'],
  'one92.test': ['192.168.0.1'],
  'metadata.test': ['169.254.169.254'],
  'ula.test': ['fd00::1'],
  'mapped.test': ['::ffff:127.0.0.1'],
  'mixed.test': ['93.184.216.34', '10.0.0.1'],
};
const tableResolver: Resolver = async (host) => {
  const addresses = TABLE[host];
  if (addresses === undefined) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

t.test('host names are judged by every address they resolve to', async (t) => {
  const none = parseAllowList([]);
  t.same(await resolveChecked('public.test', none, tableResolver), [{ address: '93.184.216.34', family: 4 }]);
  const refused: [string, RegExp][] = [
    ['loop.test', /loop\.test resolves to 127\.0\.0\.1, a loopback address/],
    ['loop6.test', /loopback/],
    ['ten.test', /private/],
    ['one72.test', /private/],
    ['one92.test', /private/],
    ['metadata.test', /cloud metadata/],
    ['ula.test', /unique-local/],
    ['mapped.test', /loopback/],
    ['mixed.test', /10\.0\.0\.1, a private address/],
  ];
  for (const [host, reason] of refused) {
    const err = await resolveChecked(host, none, tableResolver).catch((e: unknown) => e);
    t.ok(err instanceof TransferError && err.problem === 'address', `${host} refused`);
    t.match((err as Error).message, reason, host);
  }
  const missing = await resolveChecked('nowhere.test', none, tableResolver).catch((e: unknown) => e);
  t.match(missing, { problem: 'network', message: /could not be resolved \(ENOTFOUND\)/ });
});

t.test('the allow-list permits hosts by name or by address', async (t) => {
  t.ok(await resolveChecked('loop.test', parseAllowList(['loop.test']), tableResolver));
  t.ok(await resolveChecked('ten.test', parseAllowList(['10.0.0.0/8']), tableResolver));
  t.match(await resolveChecked('mixed.test', parseAllowList(['93.184.216.34']), tableResolver).catch((e: unknown) => e), { problem: 'address' });
});
