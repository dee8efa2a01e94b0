// Typing by the schema (engine/typing.ts): one rule for every route, as a case table. Ids the schema
// types as strings are strings whatever their size; integers it types as integers stay integers
// (past 2^53 written exactly); nested records, arrays, open objects, unions and cycles.
import t from 'tap';
import { compileTyper, exactJson } from '../../engine/typing.js';
import { loadManifest, defaultManifestDir } from '../../engine/manifest/load.js';
import { productRegistries } from '../../bin/compose.js';
import { testConfig } from '../../engine/config.js';
import type { JsonSchema, JsonText } from '../../engine/types.js';

const components = {
  UserShort: { type: 'object', properties: { pk: { type: 'string' }, fbid_v2: { type: ['integer', 'null'] }, either: { type: ['string', 'integer'] } } },
  Media: {
    type: 'object',
    properties: {
      pk: { type: 'string' },
      media_type: { type: 'integer' },
      user: { $ref: '#/components/schemas/UserShort' },
      usertags: { type: 'array', items: { type: 'object', properties: { user: { $ref: '#/components/schemas/UserShort' } } } },
    },
  },
  Comment: { type: 'object', properties: { pk: { type: 'string' }, replies: { type: 'array', items: { $ref: '#/components/schemas/Comment' } } } },
};
const page = (items: object) => ({ type: 'object', properties: { items: { type: 'array', items }, next_cursor: { type: 'string' } } });
const BIG = '17841400000000001234'; // past 2^53: the sidecar carries it as a string

/** The body as the client reads it: JSON text parsed with big integers kept as text. */
function written(body: unknown): string {
  return (body as JsonText)?.kind === 'json' ? (body as JsonText).text : JSON.stringify(body);
}

const cases: [string, JsonSchema, unknown, string][] = [
  ['small string id as a number', { $ref: '#/components/schemas/Media' }, { pk: 12345678, media_type: 1 }, '{"pk":"12345678","media_type":1}'],
  ['large string id carried as a string', { $ref: '#/components/schemas/Media' }, { pk: BIG }, `{"pk":"${BIG}"}`],
  ['string id already a string', { $ref: '#/components/schemas/Media' }, { pk: '3001' }, '{"pk":"3001"}'],
  ['integer past 2^53 written exactly', { $ref: '#/components/schemas/UserShort' }, { pk: '1', fbid_v2: BIG }, `{"pk":"1","fbid_v2":${BIG}}`],
  ['negative integer past 2^53', { $ref: '#/components/schemas/UserShort' }, { fbid_v2: `-${BIG}` }, `{"fbid_v2":-${BIG}}`],
  ['small integer as a digit string', { $ref: '#/components/schemas/UserShort' }, { fbid_v2: '42' }, '{"fbid_v2":42}'],
  ['integer stays; null stays', { $ref: '#/components/schemas/UserShort' }, { fbid_v2: null, pk: null }, '{"fbid_v2":null,"pk":null}'],
  ['a union of string and integer keeps either', { $ref: '#/components/schemas/UserShort' }, { either: 7, pk: 7 }, '{"either":7,"pk":"7"}'],
  [
    'nested record',
    { $ref: '#/components/schemas/Media' },
    { pk: 1, user: { pk: 5000000001, fbid_v2: BIG } },
    `{"pk":"1","user":{"pk":"5000000001","fbid_v2":${BIG}}}`,
  ],
  [
    'records in arrays in records',
    { $ref: '#/components/schemas/Media' },
    { usertags: [{ user: { pk: 2 } }, { user: { pk: '3' } }] },
    '{"usertags":[{"user":{"pk":"2"}},{"user":{"pk":"3"}}]}',
  ],
  [
    'a page of records',
    page({ $ref: '#/components/schemas/UserShort' }),
    { items: [{ pk: 1 }, { pk: BIG }], next_cursor: 20 },
    `{"items":[{"pk":"1"},{"pk":"${BIG}"}],"next_cursor":"20"}`,
  ],
  [
    'a record that contains itself',
    { $ref: '#/components/schemas/Comment' },
    { pk: 1, replies: [{ pk: 2, replies: [{ pk: 3 }] }] },
    '{"pk":"1","replies":[{"pk":"2","replies":[{"pk":"3"}]}]}',
  ],
  ['open objects keyed by id', { type: 'object', additionalProperties: { $ref: '#/components/schemas/UserShort' } }, { 5: { pk: 5 } }, '{"5":{"pk":"5"}}'],
  ['fields the schema does not name stay as sent', { $ref: '#/components/schemas/Media' }, { extra: 5, big: BIG }, `{"extra":5,"big":"${BIG}"}`],
  [
    'anyOf pools object fields',
    { anyOf: [{ $ref: '#/components/schemas/Media' }, { type: 'object', properties: { id: { type: 'string' } } }] },
    { pk: 1, id: 2 },
    '{"pk":"1","id":"2"}',
  ],
  ['a string where an integer is wanted but not digits stays', { $ref: '#/components/schemas/UserShort' }, { fbid_v2: 'n/a' }, '{"fbid_v2":"n/a"}'],
  ['an array of ids', { type: 'array', items: { type: 'string' } }, [1, '2', 3], '["1","2","3"]'],
  ['a bare string result', { type: 'string' }, 5, '"5"'],
];

t.test('the typing rule, case by case', async (t) => {
  for (const [name, schema, value, expected] of cases) {
    const typer = compileTyper(schema, components);
    t.ok(typer, `${name}: a typer`);
    t.equal(written(typer!(structuredClone(value))), expected, name);
  }
});

t.test('schemas that type nothing get no typer (raw payloads, booleans)', async (t) => {
  t.equal(compileTyper({ type: 'object', additionalProperties: true }, components), undefined);
  t.equal(compileTyper({ type: 'boolean' }, components), undefined);
  t.equal(compileTyper({ type: ['string', 'integer'] }, components), undefined);
});

t.test('exact JSON: big integers as literals, strings that look like the marker untouched', async (t) => {
  t.equal(exactJson({ a: 12345678901234567890n, b: 'x', c: [1n] }).text, '{"a":12345678901234567890,"b":"x","c":[1]}');
  t.equal(exactJson({ s: '\u0000deadbeefcafe:12' }).text, JSON.stringify({ s: '\u0000deadbeefcafe:12' }));
});

t.test('every route of the real manifest compiles a typer (or needs none)', async (t) => {
  const config = testConfig({});
  const manifest = loadManifest(defaultManifestDir(), productRegistries(config));
  let typed = 0;
  for (const route of manifest.routes) if (compileTyper(route.result.schema, manifest.schemas)) typed++;
  t.ok(typed > 100, `${typed} of ${manifest.routes.length} routes have values to type`);
  const mediaInfo = manifest.routes.find((r) => r.key === 'GET /media')!;
  const body = compileTyper(mediaInfo.result.schema, manifest.schemas)!({ pk: 12345678, id: '12345678_1', user: { pk: 1 } });
  t.match(body, { pk: '12345678', user: { pk: '1' } }, 'Media.pk and its owner pk are strings');
});
