// Webhooks per the Standard Webhooks specification: endpoints with a `whsec_` secret (shown once,
// sealed at rest), one delivery work item per endpoint and event (id `endpoint:event`, so a second
// fan-out adds nothing while one is pending, and a delivered mark stops any later rerun), signed
// `v1,` HMAC-SHA256 over `id.timestamp.body`, the spec's retry schedule, 410 disabling the endpoint,
// 429/503 honouring Retry-After, a per-endpoint delivery log and replay.
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { serviceError } from './errors.js';
import { owns } from '../../engine/owner.js';
import type { Caller, Owner, WorkEvent, WorkItem, WorkLayer, WorkOutcome } from '../../engine/types.js';
import { checkAddress, type AllowList } from '../transfer/address-guard.js';
import { resolveChecked, systemResolver, type Resolver } from '../transfer/guarded-lookup.js';
import { TransferError } from '../transfer/errors.js';
import { deferralOf } from '../work/toolkit/index.js';
import { type DeliveryOutcome, newSecret, outcomeOf, post, sign, webhookBody } from './webhook-wire.js';

export type { DeliveryOutcome } from './webhook-wire.js';

export const DELIVER = 'webhooks.deliver';
const ENDPOINTS = 'webhooks';
const DELIVERED = 'webhook-delivered';
const logOfEndpoint = (id: string) => 'webhook-log:' + id;
/** A rotated-out secret still signs (beside the new one) this long, so receivers can switch over. */
const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;
/** Attempts kept per endpoint's delivery log. */
const LOG_KEEP = 5000;

export interface Endpoint {
  readonly id: string;
  readonly url: string;
  /** Event types sent; empty: every type. */
  readonly kinds: readonly string[];
  /** Session refs sent; empty: every session's events. */
  readonly sessions: readonly string[];
  readonly description: string;
  readonly created_at: number;
  readonly disabled?: string;
  readonly secret: string; // sealed
  readonly owner?: Owner; // who made it; absent on endpoints made before owners were kept (the operator's)
  readonly previous?: { readonly secret: string; readonly until: number };
}

export interface DeliveryAttempt {
  readonly event_id: string;
  readonly type: string;
  /** The event's session ref: where replay finds the event in the logs. */
  readonly session?: string;
  readonly attempt: number;
  readonly at: number;
  readonly status: number;
  readonly outcome: DeliveryOutcome;
  readonly latency_ms: number;
  readonly replay?: boolean;
  readonly error?: string;
}

interface DeliveryData {
  readonly endpoint: string;
  readonly event: WorkEvent;
  readonly replay?: boolean;
}

export interface WebhookOptions {
  readonly backoffMs: readonly number[];
  readonly timeoutMs: number;
  readonly allow: AllowList;
  readonly resolve?: Resolver;
  readonly now?: () => number;
  /** Counts each attempt by outcome with its latency (metrics). */
  readonly observed?: (outcome: DeliveryOutcome, seconds: number) => void;
}

export class Webhooks {
  private readonly now: () => number;

  constructor(
    private readonly work: WorkLayer,
    private readonly options: WebhookOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  // -- endpoints --

  /** A new endpoint; the answer carries its secret, the only time it is shown. */
  async create(init: {
    url: string;
    kinds: readonly string[];
    sessions: readonly string[];
    description: string;
    owner?: Owner;
  }): Promise<Record<string, unknown>> {
    await this.checkUrl(init.url);
    const id = 'ep_' + randomBytes(12).toString('base64url');
    const secret = newSecret();
    const { url, kinds, sessions, description, owner } = init;
    const endpoint: Endpoint = {
      id,
      url,
      kinds: [...kinds],
      sessions: [...sessions],
      description,
      created_at: this.now(),
      secret: this.work.store.seal(secret, id),
      owner,
    };
    await this.work.store.put(ENDPOINTS, id, endpoint);
    return { ...publicView(endpoint), secret };
  }

  /** Every endpoint, or with a caller the ones it owns. */
  async list(caller?: Caller): Promise<Record<string, unknown>[]> {
    return (await this.work.store.list<Endpoint>(ENDPOINTS)).filter(({ value }) => !caller || owns(caller, value.owner)).map(({ value }) => publicView(value));
  }

  /** The endpoint; with a caller, another owner's answers 404 as an unknown one. */
  async get(id: string, caller?: Caller): Promise<Endpoint> {
    const endpoint = await this.work.store.get<Endpoint>(ENDPOINTS, id);
    if (!endpoint || (caller && !owns(caller, endpoint.owner))) throw notFound(id);
    return endpoint;
  }

  async remove(id: string, caller?: Caller): Promise<void> {
    if (caller) await this.get(id, caller);
    if (!(await this.work.store.delete(ENDPOINTS, id))) throw notFound(id);
    await this.work.store.dropList(logOfEndpoint(id));
  }

  /** A new secret; the old one keeps signing beside it for a day, so receivers can switch over. */
  async rotate(id: string, caller?: Caller): Promise<Record<string, unknown>> {
    if (caller) await this.get(id, caller);
    const secret = newSecret();
    const updated = await this.work.store.update<Endpoint>(
      ENDPOINTS,
      id,
      (current) =>
        current && { ...current, secret: this.work.store.seal(secret, id), previous: { secret: current.secret, until: this.now() + ROTATION_OVERLAP_MS } },
    );
    if (!updated) throw notFound(id);
    return { ...publicView(updated), secret };
  }

  /** Turns a disabled endpoint (410, or every retry spent) back on. */
  async enable(id: string, caller?: Caller): Promise<Record<string, unknown>> {
    if (caller) await this.get(id, caller);
    const updated = await this.work.store.update<Endpoint>(ENDPOINTS, id, (current) => current && { ...current, disabled: undefined });
    if (!updated) throw notFound(id);
    return publicView(updated);
  }

  /** The endpoint's attempts, oldest first after `after` (the log position). */
  async attempts(id: string, after: number, limit: number, caller?: Caller): Promise<{ seq: number; attempt: DeliveryAttempt }[]> {
    await this.get(id, caller);
    return (await this.work.store.read<DeliveryAttempt>(logOfEndpoint(id), { after, limit })).map(({ seq, value }) => ({ seq, attempt: value }));
  }

  /** Sends an event again to an endpoint, whatever became of its first delivery (same webhook-id). */
  async replay(id: string, event: WorkEvent, caller?: Caller): Promise<void> {
    await this.get(id, caller);
    const data: DeliveryData = { endpoint: id, event, replay: true };
    await this.work.queue.add(DELIVER, `${id}:${event.id}:replay:${this.now()}`, data, this.retries());
  }

  // -- work --

  /** The fan-out: one delivery per matching enabled endpoint. Rerunning it adds nothing new. */
  async fanOut(event: WorkEvent): Promise<number> {
    let queued = 0;
    for (const { value: endpoint } of await this.work.store.list<Endpoint>(ENDPOINTS)) {
      if (!matches(endpoint, event)) continue;
      const data: DeliveryData = { endpoint: endpoint.id, event };
      await this.work.queue.add(DELIVER, `${endpoint.id}:${event.id}`, data, this.retries());
      queued++;
    }
    return queued;
  }

  private retries() {
    return { attempts: this.options.backoffMs.length + 1, backoffMs: this.options.backoffMs };
  }

  /** One attempt. Throwing schedules the next step of the retry schedule. */
  deliver = async (item: WorkItem<DeliveryData>): Promise<WorkOutcome> => {
    const { event } = item.data;
    const endpoint = await this.work.store.get<Endpoint>(ENDPOINTS, item.data.endpoint);
    if (!endpoint || endpoint.disabled) return;
    const mark = `${endpoint.id}:${event.id}`;
    if (!item.data.replay && (await this.work.store.get(DELIVERED, mark))) return; // delivered before a crash or by a second fan-out
    const started = this.now();
    const result = await this.send(endpoint, event, item.signal).catch((error: Error) => ({ status: 0, retryAfter: undefined, error: error.message }));
    const outcome = outcomeOf(result.status, result.retryAfter, item.attempt >= this.options.backoffMs.length + 1);
    const latency = this.now() - started;
    const attempt: DeliveryAttempt = {
      event_id: event.id,
      type: event.type,
      session: event.session,
      attempt: item.attempt,
      at: started,
      status: result.status,
      outcome,
      latency_ms: latency,
      ...(item.data.replay ? { replay: true } : {}),
      ...('error' in result && result.error ? { error: result.error } : {}),
    };
    await this.work.store.append(logOfEndpoint(endpoint.id), [{ key: `${item.id}:${item.attempt}:${started}`, value: attempt }]);
    this.options.observed?.(outcome, latency / 1000); // after the attempt is logged: a live view that hears it finds it
    if (Math.random() < 0.01) await this.work.store.trim(logOfEndpoint(endpoint.id), LOG_KEEP).catch(() => undefined);
    if (outcome === 'delivered') return void (await this.work.store.put(DELIVERED, mark, { at: this.now() }));
    if (outcome === 'disabled') return void (await this.disable(endpoint.id, 'the receiver answered 410 Gone'));
    if (outcome === 'deferred') return { delayMs: deferralOf(result.status, result.retryAfter)! };
    throw new Error(
      `webhook delivery to ${endpoint.id} failed: ${result.status ? 'HTTP ' + result.status : ('error' in result && result.error) || 'no answer'}`,
    );
  };

  disable(id: string, why: string): Promise<unknown> {
    return this.work.store.update<Endpoint>(ENDPOINTS, id, (current) => current && { ...current, disabled: why });
  }

  private async send(endpoint: Endpoint, event: WorkEvent, signal: AbortSignal): Promise<{ status: number; retryAfter?: number }> {
    const url = new URL(endpoint.url);
    const body = webhookBody(event);
    const timestamp = Math.floor(this.now() / 1000);
    const secrets = [this.work.store.open(endpoint.secret, endpoint.id)];
    if (endpoint.previous && endpoint.previous.until > this.now()) secrets.push(this.work.store.open(endpoint.previous.secret, endpoint.id));
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'socialgate-webhooks',
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': secrets.map((secret) => sign(secret, event.id, timestamp, body)).join(' '),
    };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host)) this.checkLiteral(host);
    return post(url, headers, body, this.options.timeoutMs, this.options.allow, this.options.resolve ?? systemResolver, signal);
  }

  /** The same address guard as by-URL fetches: loopback and private addresses only when allow-listed. */
  private async checkUrl(raw: string): Promise<void> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw badUrl('it is not a URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw badUrl('only http and https URLs are delivered to');
    if (url.username || url.password) throw badUrl('credentials in the URL are refused; the signature authenticates deliveries');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    try {
      if (isIP(host)) this.checkLiteral(host);
      else await resolveChecked(host, this.options.allow, this.options.resolve ?? systemResolver);
    } catch (error) {
      throw badUrl(error instanceof Error ? error.message : String(error));
    }
  }

  private checkLiteral(ip: string): void {
    const verdict = checkAddress(ip, this.options.allow);
    if (!verdict.allowed) throw new TransferError('address', verdict.reason);
  }
}

function matches(endpoint: Endpoint, event: WorkEvent): boolean {
  if (endpoint.disabled) return false;
  if (endpoint.kinds.length && !endpoint.kinds.some((kind) => kind === event.type || (kind.endsWith('.*') && event.type.startsWith(kind.slice(0, -1)))))
    return false;
  return !endpoint.sessions.length || (event.session !== undefined && endpoint.sessions.includes(event.session));
}

function publicView(endpoint: Endpoint): Record<string, unknown> {
  return {
    id: endpoint.id,
    url: endpoint.url,
    kinds: endpoint.kinds,
    sessions: endpoint.sessions,
    description: endpoint.description,
    created_at: new Date(endpoint.created_at).toISOString(),
    disabled: endpoint.disabled ?? null,
    rotating_until: endpoint.previous ? new Date(endpoint.previous.until).toISOString() : null,
  };
}

function notFound(id: string) {
  return serviceError('WebhookNotFound', `No webhook endpoint ${id}`);
}

function badUrl(why: string) {
  return serviceError('WebhookUrlRefused', `url: the endpoint cannot be delivered to: ${why}`, { errors: [{ param: 'url', problem: why }] });
}
