// The engine's own query parser reads a query string exactly as Koa's `ctx.query` does
// (URLSearchParams: `+` a space, `%XX` decoded, a repeated name a list), and faster: a case table
// against Koa's parser, the fast split path and the decoding path alike.
import { createRequire } from 'node:module';
import t from 'tap';
import { parseQuery } from '../../../engine/pipeline/query.js';

const koaParse = (createRequire(import.meta.url)('koa/lib/search-params.js') as { parse: (text: string) => Record<string, unknown> }).parse;

const cases: [string, Record<string, string | string[]>][] = [
  ['', {}],
  ['user_id=5000000001', { user_id: '5000000001' }],
  ['a=1&b=2', { a: '1', b: '2' }],
  ['a=1&a=2&a=3', { a: ['1', '2', '3'] }],
  ['ids[]=1&ids[]=2', { 'ids[]': ['1', '2'] }],
  ['flag', { flag: '' }],
  ['flag=', { flag: '' }],
  ['=x', { '': 'x' }],
  ['a=b=c', { a: 'b=c' }],
  ['&&a=1&&', { a: '1' }],
  ['q=hello+world', { q: 'hello world' }],
  ['q=%40demo&r=%E2%9C%93', { q: '@demo', r: '✓' }],
  ['q=100%', { q: '100%' }],
  ['q=%zz', { q: '%zz' }],
  ['na%6De=1', { name: '1' }],
  ['__proto__=1&constructor=2', JSON.parse('{"__proto__": "1", "constructor": "2"}') as Record<string, string>],
  ['ü=ö', { ü: 'ö' }],
];

for (const [text, expected] of cases) {
  t.test(`"${text}"`, async (t) => {
    const ours = parseQuery(text);
    t.same({ ...koaParse(text) }, { ...ours }, 'as Koa reads it');
    t.same(Object.keys(ours), Object.keys(expected), 'the names, in order');
    for (const name of Object.keys(expected)) t.same(ours[name], expected[name], name);
  });
}

t.test('the parsed object inherits nothing a name could collide with', async (t) => {
  const query = parseQuery('toString=1');
  t.equal(query.toString, '1');
  for (const inherited of ['hasOwnProperty', 'constructor', '__proto__', 'valueOf']) t.notOk(inherited in parseQuery('x=1'), `no ${inherited}`);
  t.same(Object.keys(parseQuery('__proto__=1')), ['__proto__'], '__proto__ is a name like any other');
});
