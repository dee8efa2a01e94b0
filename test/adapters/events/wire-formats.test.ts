// How events leave the service, as case tables: event ids and log names (adapters/events/ids.ts), the
// SSE frame (sse.ts), the webhook body and its Standard Webhooks signature (webhooks.ts, checked with
// the `standardwebhooks` package, a verifier this project did not write) and the watcher's state as
// GET /events/watch shows it (plugins/events/watch-state.ts). Pure functions: no service runs here.
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { eventId, logOf } from '../../../adapters/events/ids.js';
import { frame } from '../../../adapters/events/sse.js';
import { newSecret, sign, webhookBody } from '../../../adapters/events/webhook-wire.js';
import type { WorkEvent } from '../../../engine/types.js';
import { viewOf, type WatchState } from '../../../plugins/events/watch-state.js';

const AT = Date.UTC(2026, 0, 2, 3, 4, 5);
const EVENT: WorkEvent = { id: 'evt_x', type: 'direct.message.created', session: 'ref1', timestamp: AT, data: { text: 'line one\nline two', n: 1 } };

t.test('logOf: one log per session ref, one shared log without a session', async (t) => {
  const cases: [string | undefined, string][] = [
    ['abc', 'events:abc'],
    ['-', 'events:-'],
    [undefined, 'events:-'],
  ];
  for (const [ref, log] of cases) t.equal(logOf(ref), log, `${ref}`);
});

t.test('eventId: stable, distinct and safe in a URL or a header', async (t) => {
  const cases: [string, [string, ...(string | number)[]], [string, ...(string | number)[]], boolean][] = [
    ['the same parts', ['notification.created', '1', 'a'], ['notification.created', '1', 'a'], true],
    ['another part', ['notification.created', '1', 'a'], ['notification.created', '1', 'b'], false],
    ['another type, same parts', ['notification.created', '1', 'a'], ['direct.request.created', '1', 'a'], false],
    ['parts joined differently', ['job.done', 'ab', 'c'], ['job.done', 'a', 'bc'], false],
    ['a number and its text', ['job.done', 5], ['job.done', '5'], true],
  ];
  for (const [name, [typeA, ...a], [typeB, ...b], same] of cases) t.equal(eventId(typeA, ...a) === eventId(typeB, ...b), same, name);
  const id = eventId('direct.message.created', '100', 't1', 'm1');
  t.match(id, /^evt_direct\.message\.created_[A-Za-z0-9_-]{22}$/, 'the type is readable in the id, the rest base64url');
});

t.test('frame: one SSE frame per event', async (t) => {
  const text = frame(42, EVENT);
  t.equal(text.slice(0, 37), 'id: 42\nevent: direct.message.created\n', 'the log position as the id, the type as the event name');
  t.ok(text.endsWith('\n\n'), 'a blank line ends the frame');
  const lines = text.trimEnd().split('\n');
  t.equal(lines.length, 3, 'a newline inside the data stays escaped in its JSON: the frame keeps three lines');
  t.same(JSON.parse(lines[2].slice('data: '.length)), { id: 'evt_x', type: 'direct.message.created', timestamp: '2026-01-02T03:04:05.000Z', data: EVENT.data });
});

t.test('webhookBody and sign: a Standard Webhooks delivery another verifier accepts', async (t) => {
  t.same(JSON.parse(webhookBody(EVENT)), { type: 'direct.message.created', timestamp: '2026-01-02T03:04:05.000Z', data: EVENT.data }, 'type, timestamp, data');
  const secret = newSecret();
  t.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/, 'a whsec_ secret of 24 random bytes');
  t.not(newSecret(), secret, 'each secret is new');
  const body = webhookBody(EVENT);
  const now = Math.floor(Date.now() / 1000);
  const headers = (signature: string, timestamp = now) => ({ 'webhook-id': EVENT.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature });
  const verifier = new Webhook(secret);
  t.same(verifier.verify(body, headers(sign(secret, EVENT.id, now, body))), JSON.parse(body), 'the signature verifies');
  const refused: [string, () => unknown][] = [
    ['another body', () => verifier.verify(body.replace('line one', 'line 1'), headers(sign(secret, EVENT.id, now, body)))],
    ['another secret', () => verifier.verify(body, headers(sign(newSecret(), EVENT.id, now, body)))],
    ['another id', () => verifier.verify(body, headers(sign(secret, 'evt_other', now, body)))],
    ['another timestamp', () => verifier.verify(body, headers(sign(secret, EVENT.id, now - 1, body)))],
  ];
  for (const [name, verify] of refused) t.throws(verify, `${name}: refused`);
  const rotated = [newSecret(), secret].map((s) => sign(s, EVENT.id, now, body)).join(' ');
  t.ok(verifier.verify(body, headers(rotated)), 'during a rotation, either signature in the list verifies');
  t.equal(sign(secret, 'a', 1, 'b'), sign(secret.replace(/^whsec_/, ''), 'a', 1, 'b'), 'the whsec_ prefix is not part of the key');
});

t.test('viewOf: the watcher as GET /events/watch shows it', async (t) => {
  const base: WatchState = {
    ref: 'ref1',
    account: { pk: '100', username: 'demo' },
    kinds: ['direct.message.created'],
    interval_ms: 60_000,
    source: 'poll',
    started_at: AT,
    marks: {},
    checks: 3,
    emitted: 2,
  };
  t.same(viewOf(base, AT), {
    watching: true,
    ref: 'ref1',
    account: { pk: '100', username: 'demo' },
    kinds: ['direct.message.created'],
    interval_seconds: 60,
    source: 'poll',
    started_at: '2026-01-02T03:04:05.000Z',
    last_check_at: null,
    next_check_at: null,
    lag_seconds: null,
    paused: null,
    checks: 3,
    emitted: 2,
    truncated: 0,
    instance: null,
    last_error: null,
    overdue: false,
  });
  const next = AT + 60_000;
  const cases: [string, Partial<WatchState>, number, Record<string, unknown>][] = [
    ['due, not overdue', { next_check_at: next }, next + 60_000, { overdue: false, next_check_at: '2026-01-02T03:05:05.000Z' }],
    ['overdue past one interval', { next_check_at: next }, next + 60_001, { overdue: true }],
    [
      'paused is never overdue',
      { next_check_at: next, paused: { reason: 'challenge' } },
      next + 600_000,
      { overdue: false, paused: { reason: 'challenge', until: null } },
    ],
    ['a pause until a time', { paused: { reason: 'throttled', until: next } }, AT, { paused: { reason: 'throttled', until: '2026-01-02T03:05:05.000Z' } }],
    ['lag rounded to the millisecond', { lag_ms: 1234.6 }, AT, { lag_seconds: 1.235 }],
    [
      'the last error with its time',
      { last_error: { exc_type: 'LoginRequired', at: AT } },
      AT,
      { last_error: { exc_type: 'LoginRequired', at: '2026-01-02T03:04:05.000Z' } },
    ],
    ['truncated checks and the instance', { truncated: 2, instance: 'host:1' }, AT, { truncated: 2, instance: 'host:1' }],
  ];
  for (const [name, change, now, expected] of cases) t.match(viewOf({ ...base, ...change }, now), expected, name);
  t.notOk('marks' in viewOf(base, AT) || 'item' in viewOf({ ...base, item: { session: 'sealed' } }, AT), 'watermarks and the sealed session stay inside');
});
