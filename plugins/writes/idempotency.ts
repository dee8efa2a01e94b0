// Exactly-once writes: the Idempotency-Key guard (engine/types/guards.ts), outermost of the
// product's guards. A keyed write claims its key as `sent` in the shared store before anything
// reaches the platform; the answer replaces the claim. A repeat replays the answer, waits (409)
// while the first runs, or, when the first's owner died or its answer was lost, reads back
// (reconcile.ts) instead of sending again. Without the header nothing happens here at all.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { invalidParams, keyedWrite, serviceError } from '../../engine/service-errors.js';
import type { GuardedCall, GuardNext, RouteGuard, RouteSpec, Services } from '../../engine/types.js';
import { IdempotencyKeys, memoryDocs, type KeyRecord } from './idempotency-store.js';
import { answerLost, checkFor, outcomeUnknown, reconcile, type Outcome } from './reconcile.js';
import type { Check } from './reconcile-checks.js';

export const KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** Printable ASCII, as the IETF draft's keys and the payment APIs' are. */
const KEY_FORM = /^[\x21-\x7e]{1,255}$/;

export interface IdempotencySettings {
  readonly ttlMs: number;
  readonly leaseMs: number;
}

export function idempotencyGuard(settings: IdempotencySettings): RouteGuard {
  let keys: IdempotencyKeys | undefined;
  return {
    name: 'idempotency',
    bind(route, services) {
      if (!keyedWrite(route)) return undefined;
      keys ??= new IdempotencyKeys(services.work?.store ?? memoryDocs(), settings);
      const check = checkFor(route); // an unknown check name stops the boot here
      const store = keys;
      return (call, next) => {
        const given = call.header?.(KEY_HEADER) ?? '';
        if (!given || !call.session) return next();
        return keyed(new KeyedCall(route, call, store, services, check), given, next);
      };
    },
  };
}

/** One keyed call: its key's stored id, its fingerprint and the read-back of its route. */
class KeyedCall {
  constructor(
    readonly route: RouteSpec,
    readonly call: GuardedCall,
    readonly keys: IdempotencyKeys,
    readonly services: Services,
    readonly check: Check | undefined,
  ) {}

  readBack(record: KeyRecord): Promise<Outcome> {
    const { session, bag } = this.call;
    const client = this.services.sessions.client(session!);
    return reconcile(this.route, this.check, { bag, me: session!.account.pk, since: record.startedAt, call: (method, kwargs) => client.call(method, kwargs) });
  }
}

async function keyed(k: KeyedCall, given: string, next: GuardNext): Promise<unknown> {
  if (!KEY_FORM.test(given)) throw invalidParams([{ param: KEY_HEADER, problem: 'must be 1 to 255 printable ASCII characters' }]);
  const id = IdempotencyKeys.idOf(k.call.session!.id, given);
  const fingerprint = await fingerprintOf(k.call);
  const claim = await k.keys.claim(id, fingerprint);
  if (claim.mine) return run(k, id, claim.record, next);
  return repeat(k, id, claim.record, next, fingerprint);
}

/** A repeat: the stored answer, a refusal, or (the first's owner gone, or its outcome unknown) a read-back. */
async function repeat(k: KeyedCall, id: string, record: KeyRecord, next: GuardNext, fingerprint: string): Promise<unknown> {
  if (record.fingerprint !== fingerprint) {
    throw serviceError(
      'IdempotencyKeyReused',
      `This Idempotency-Key was used for another request to ${k.route.key} or another route (parameters or files differ); a key names one request.`,
    );
  }
  if (record.state === 'done') return replay(k.call, record.status, record.body);
  if (record.state === 'sent' && record.until > Date.now()) throw inFlight(record);
  const taken = await k.keys.takeOver(id, record);
  if (!taken) throw inFlight({ ...record, until: Date.now() + 1000 });
  const outcome = await k.readBack(taken);
  if (outcome.state === 'absent') return run(k, id, taken, next); // confirmed never written: this request sends it
  return settle(k, id, taken.owner, outcome, () => replay(k.call, undefined, (outcome as { value: unknown }).value));
}

/** The first request with the key (or the one that found it never written): the write, once. */
async function run(k: KeyedCall, id: string, claim: KeyRecord, next: GuardNext): Promise<unknown> {
  const stop = k.keys.keepAlive(id, claim.owner);
  let value: unknown;
  try {
    value = await next();
  } catch (error) {
    stop();
    return failed(k, id, claim, error);
  }
  stop();
  if (storable(value)) await k.keys.done(id, claim.owner, { status: k.call.reply.status, body: value });
  else await k.keys.free(id, claim.owner);
  return value;
}

/**
 * A failed first run: a lost answer is read back (confirmed: answered as the write's result;
 * never written: the error stands and the key is free; unknown: remembered, 502); any other
 * failure proves nothing was written (refused by the platform, a guard or the store), so the key
 * is freed for a new try and nothing is stored.
 */
async function failed(k: KeyedCall, id: string, claim: KeyRecord, error: unknown): Promise<unknown> {
  if (!answerLost(error)) {
    await k.keys.free(id, claim.owner).catch(() => undefined);
    throw error;
  }
  const outcome = await k.readBack(claim);
  if (outcome.state === 'absent') {
    await k.keys.free(id, claim.owner).catch(() => undefined);
    throw error;
  }
  return settle(k, id, claim.owner, outcome, () => (outcome as { value: unknown }).value);
}

/** A read-back's outcome kept with the key: the confirmed answer, or unknown (502 naming what to check). */
async function settle(k: KeyedCall, id: string, owner: string, outcome: Outcome, answer: () => unknown): Promise<unknown> {
  if (outcome.state === 'unknown') {
    await k.keys.unknown(id, owner, outcome.check).catch(() => undefined);
    throw outcomeUnknown(k.route, outcome.check);
  }
  const value = answer();
  await k.keys.done(id, owner, { body: value });
  return value;
}

function replay(call: GuardedCall, status: number | undefined, body: unknown): unknown {
  call.reply.headers[REPLAYED_HEADER] = 'true';
  if (status !== undefined) call.reply.status = status;
  return body;
}

function inFlight(record: KeyRecord): Error {
  const seconds = Math.max(1, Math.ceil((record.until - Date.now()) / 1000));
  return serviceError('IdempotencyKeyInFlight', 'A request with this Idempotency-Key is still running; its answer is replayed once it ends.', {
    retryAfter: seconds,
  });
}

/** JSON answers are kept; a stream or a file (never a write's) is not. */
function storable(value: unknown): boolean {
  return value === null || typeof value !== 'object' || (!Buffer.isBuffer(value) && typeof (value as { pipe?: unknown }).pipe !== 'function');
}

/** The request as a key names it: the route, its parameters (files by their bytes' hash, not their temp paths). */
async function fingerprintOf(call: GuardedCall): Promise<string> {
  const fileParams = new Set(call.route.params.filter((param) => param.type === 'file').map((param) => param.name));
  const params = Object.keys(call.bag)
    .filter((name) => !fileParams.has(name) && !name.startsWith('_'))
    .sort()
    .map((name) => [name, call.bag[name]]);
  const files = await Promise.all(call.files.map(async (file) => [file.field, await hashFile(file.path)]));
  return createHash('sha256')
    .update(JSON.stringify([call.route.key, params, files]))
    .digest('base64url');
}

function hashFile(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}
