// Case tables for every coercion and every result shape: small pure functions, tested as tables.
import t from 'tap';
import { coerceParam, jsonList, scalarCoercers } from '../../engine/coerce.js';
import { resolvers } from '../../engine/resolvers.js';
import { shapes } from '../../engine/shapes.js';
import type { FileMaker, ParamSpec, ResultSpec } from '../../engine/types.js';

const param = (coerce: string, repeated = false): ParamSpec => ({
  name: 'p',
  in: 'query',
  type: coerce as ParamSpec['type'],
  required: false,
  repeated,
  schema: {},
  upstream: 'p',
  coerce,
});

const ok: [string, string[], unknown, boolean?][] = [
  ['string', ['a b'], 'a b'],
  ['id', ['12345678901234567890'], '12345678901234567890'],
  ['id', [' 42 '], '42'],
  ['integer', ['42'], 42],
  ['integer', ['-7'], -7],
  ['number', ['0.5'], 0.5],
  ['number', ['1e3'], 1000],
  ['boolean', ['true'], true],
  ['boolean', ['0'], false],
  ['boolean', ['YES'], true],
  ['boolean', ['off'], false],
  ['json', ['{"a":1}'], { a: 1 }],
  ['url', ['https://example.invalid/x'], 'https://example.invalid/x'],
  ['file', ['/tmp/x'], '/tmp/x'],
  ['id', ['1', '2'], ['1', '2'], true],
  ['integer', ['1', '2'], [1, 2], true],
  ['json', ['[{"a":1},{"a":2}]'], [{ a: 1 }, { a: 2 }], true],
  ['json', ['{"a":1}', '{"a":2}'], [{ a: 1 }, { a: 2 }], true],
  ['json', [''], [], true],
];
for (const [coerce, raw, expected, repeated] of ok) {
  t.same(coerceParam(raw, param(coerce, repeated)), expected, `${coerce}${repeated ? '[]' : ''} ${JSON.stringify(raw)}`);
}

const bad: [string, string[], RegExp, boolean?][] = [
  ['integer', ['4.5'], /integer/],
  ['integer', ['abc'], /integer/],
  ['integer', ['99999999999999999999'], /out of range/],
  ['number', ['1,5'], /number/],
  ['boolean', ['maybe'], /boolean/],
  ['json', ['{nope'], /JSON/],
  ['json', ['[1,', '2]'], /JSON/, true],
  ['string', ['a', 'b'], /more than once/],
];
for (const [coerce, raw, message, repeated] of bad) {
  t.throws(() => coerceParam(raw, param(coerce, repeated)), message, `${coerce} rejects ${JSON.stringify(raw)}`);
}
t.same(Object.keys(scalarCoercers).sort(), ['boolean', 'file', 'id', 'integer', 'json', 'number', 'string', 'url'], 'every type has a coercer');
t.same(jsonList(['[1,2]', '3']), [1, 2, 3], 'arrays and single values mix');

const spec = (shape: string, options: Record<string, unknown> = {}): ResultSpec => ({
  shape,
  schema: {},
  options: options as ResultSpec['options'],
  contentType: 'application/json',
  body: 'json',
});
// A stand-in for the route's file maker: what a file shape asked it to make.
const files: FileMaker = {
  file: (path) => ({ kind: 'file', path, filename: 'made', contentType: 'test/file' }),
  zip: (paths) => ({ kind: 'stream', stream: null as never, filename: `zip of ${paths.join(' ')}`, contentType: 'application/zip' }),
};
const shapeCases: [string, unknown, unknown, Record<string, unknown>?, Record<string, unknown>?][] = [
  ['page', [[{ pk: '1' }], 'c2'], { items: [{ pk: '1' }], next_cursor: 'c2' }],
  ['page', [[], null], { items: [], next_cursor: '' }],
  ['stream_page', [[1], 'a', 'b'], { items: [1], min_cursor: 'a', max_cursor: 'b' }],
  ['array', [1, 2], [1, 2]],
  ['array', { '1': { pk: '1' } }, [{ pk: '1' }]],
  ['array', null, []],
  ['object', { a: 1 }, { a: 1 }],
  ['raw', { anything: [1] }, { anything: [1] }],
  ['bool', true, true],
  ['bool', null, false],
  ['string', 123456, '123456'],
  ['tuple', [{ pk: '1' }, { x: 1 }], { user: { pk: '1' }, info: { x: 1 } }, { keys: ['user', 'info'] }],
  ['compose', null, { type: 'post', code: 'abc' }, { fields: { type: 'share.type', code: 'code' } }, { share: { type: 'post' }, code: 'abc' }],
  ['text', 'a 1', 'a 1'],
  ['html', '<p>1</p>', '<p>1</p>'],
  ['file', '/tmp/x.jpg', { kind: 'file', path: '/tmp/x.jpg', filename: 'made', contentType: 'test/file' }],
  ['files', ['/tmp/a.jpg', '/tmp/b.mp4'], { kind: 'stream', stream: null, filename: 'zip of /tmp/a.jpg /tmp/b.mp4', contentType: 'application/zip' }],
  ['constant', undefined, { a: [1] }, { value: { a: [1] } }],
  [
    'find',
    [
      { id: '1', n: 'a' },
      { id: '2', n: 'b' },
    ],
    { id: '2', n: 'b' },
    { fields: { id: 'pk' } },
    { pk: 2 },
  ],
];
for (const [shape, value, expected, options, bag] of shapeCases) {
  t.same(shapes[shape].shape(value, spec(shape, options), bag ?? {}, files), expected, `shape ${shape}`);
}
t.throws(() => shapes.page.shape({ not: 'a tuple' }, spec('page'), {}, files), /no page tuple/, 'page rejects a non-tuple');
t.throws(
  () => shapes.find.shape([{ id: '1' }], spec('find', { fields: { id: 'pk' } }), { pk: '9' }, files),
  /Nothing matches id "9"/,
  'find answers 404 when nothing matches',
);
t.same(
  Object.keys(shapes).sort(),
  ['array', 'bool', 'compose', 'constant', 'events', 'file', 'files', 'find', 'html', 'object', 'page', 'raw', 'stream_page', 'string', 'text', 'tuple'],
  'shape registry',
);
const stream = { kind: 'stream', stream: null, contentType: 'text/event-stream' };
t.equal(shapes.events.shape(stream, spec('events'), {}, files), stream, 'events passes the opened stream through');
t.throws(() => shapes.events.shape({ not: 'a stream' }, spec('events'), {}, files), /needs a stream/, 'events refuses anything else');
for (const [name, entry] of Object.entries(shapes)) t.type(entry.schema({}), 'object', `${name} documents a schema`);
const written = Object.fromEntries(Object.entries(shapes).map(([name, entry]) => [name, [entry.body ?? 'json', entry.contentType ?? 'application/json']]));
t.same(
  written,
  {
    page: ['json', 'application/json'],
    stream_page: ['json', 'application/json'],
    array: ['json', 'application/json'],
    object: ['json', 'application/json'],
    raw: ['json', 'application/json'],
    bool: ['json', 'application/json'],
    string: ['json', 'application/json'],
    tuple: ['json', 'application/json'],
    compose: ['json', 'application/json'],
    find: ['json', 'application/json'],
    constant: ['json', 'application/json'],
    text: ['text', 'text/plain; charset=utf-8'],
    html: ['text', 'text/html; charset=utf-8'],
    events: ['stream', 'text/event-stream'],
    file: ['file', 'application/octet-stream'],
    files: ['file', 'application/zip'],
  },
  'each shape owns how it is written and its content type',
);
const plugged = { kind: 'stream', stream: null, contentType: 'text/csv' };
t.equal(shapes.file.shape(plugged, spec('file'), {}, files), plugged, 'a file or stream a plugin made passes the file shape as it is');
t.same(shapes.file.schema({}), { type: 'string', format: 'binary' }, 'file documented as binary');

// Resolvers: what the bag holds after the step, and which upstream calls it made.
const resolverCases: [string, Record<string, unknown>, Record<string, unknown>, string[]][] = [
  ['username_to_pk', { user_id: '42' }, { user_id: '42' }, []],
  ['username_to_pk', { user_id: '@Ann' }, { user_id: '100' }, ['user_info_by_username_v1 ann']],
  ['username_to_pk', { username: 'ann' }, { user_id: '100' }, ['user_info_by_username_v1 ann']],
  ['username_from_id', { user_id: '42' }, { user_id: '42' }, []],
  ['username_from_id', { user_id: '@Ann' }, { username: 'Ann' }, []],
  ['username_from_id', { user_id: ' ann ' }, { username: 'ann' }, []],
  ['username_from_id', { username: '@ann' }, { username: 'ann' }, []],
];
for (const [by, input, expected, calls] of resolverCases) {
  t.test(`resolver ${by} ${JSON.stringify(input)}`, async (t) => {
    const made: string[] = [];
    const into = by === 'username_to_pk' ? 'user_id' : 'username';
    const ctx = {
      scope: 's',
      cache: { get: () => undefined, set: () => undefined },
      call: async (method: string, kwargs: Readonly<Record<string, unknown>>) => (made.push(`${method} ${String(kwargs.username)}`), { pk: '100' }),
    };
    const bag = { ...input };
    await resolvers[by].resolve(bag, { by, from: ['user_id', 'username'], into }, ctx);
    t.same(bag, expected);
    t.same(made, calls);
  });
}
for (const by of ['username_to_pk', 'username_from_id']) {
  t.rejects(
    async () =>
      resolvers[by].resolve(
        { user_id: '@' },
        { by, from: ['user_id', 'username'], into: 'user_id' },
        { scope: 's', cache: { get: () => undefined, set: () => undefined }, call: async () => ({}) },
      ),
    /user pk or a username/,
    `${by}: a bare @ is a 422`,
  );
}
t.same(Object.keys(resolvers).sort(), ['username_from_id', 'username_to_pk'], 'resolver registry');
