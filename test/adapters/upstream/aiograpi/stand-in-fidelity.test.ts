// The stand-in aiograpi package must stay faithful: every exception class of the real 1.0.9 with the
// same bases, and Client methods whose signatures match the real ones.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { FIXTURES } from '../../../helpers/sidecar.js';
import { fromRoot, SHARED } from '../../../helpers/root.js';

// The specification sits beside the project (../shared), wherever the project is checked out.
const UPSTREAM = join(SHARED, 'upstream', 'aiograpi-1.0.9');
const skip = existsSync(UPSTREAM) ? false : `the shared upstream description (${UPSTREAM}) is not here`;

const python = (code: string): unknown =>
  JSON.parse(execFileSync('python3', ['-c', code], { env: { ...process.env, PYTHONPATH: FIXTURES, PYTHONDONTWRITEBYTECODE: '1' } }).toString());

t.test('exceptions.py has every class of exceptions.json with the same bases', { skip }, async (t) => {
  const expected = (JSON.parse(readFileSync(`${UPSTREAM}/exceptions.json`, 'utf8')) as { exceptions: { name: string; bases: string[] }[] }).exceptions;
  const actual = python(`
import inspect, json, aiograpi.exceptions as m
print(json.dumps([{"name": n, "bases": [b.__name__ for b in c.__bases__]} for n, c in vars(m).items()
                  if inspect.isclass(c) and issubclass(c, BaseException) and c.__module__ == m.__name__]))`) as { name: string; bases: string[] }[];
  t.equal(actual.length, expected.length, `${expected.length} classes`);
  t.same(Object.fromEntries(actual.map((e) => [e.name, e.bases])), Object.fromEntries(expected.map((e) => [e.name, e.bases])));
});

t.test('the stand-in Client methods are real aiograpi methods with the real parameters', { skip }, async (t) => {
  type Method = { name: string; params: { name: string; required: boolean }[] };
  const real = new Map((JSON.parse(readFileSync(`${UPSTREAM}/methods.json`, 'utf8')) as { methods: Method[] }).methods.map((m) => [m.name, m]));
  const standIn = python(`
import sys, json; sys.path.insert(0, ${JSON.stringify(fromRoot('adapters', 'upstream', 'aiograpi'))})
import aiograpi, sidecar_introspect as si
print(json.dumps(si.describe(aiograpi.Client, aiograpi.STANDIN_VERSION)["methods"]))`) as Method[];
  t.ok(standIn.length >= 20, `${standIn.length} methods`);
  for (const method of standIn) {
    const twin = real.get(method.name);
    if (!twin) {
      t.fail(`${method.name} is not an aiograpi 1.0.9 method`);
      continue;
    }
    const names = (m: Method) => m.params.map((p) => `${p.name}${p.required ? '' : '?'}`);
    // The stand-in may drop trailing optional parameters it does not simulate.
    t.same(names(method), names(twin).slice(0, method.params.length), method.name);
  }
});
