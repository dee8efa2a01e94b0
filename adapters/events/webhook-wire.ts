// The wire side of a webhook delivery (Standard Webhooks): the body, the `v1,` signature, one guarded POST
// and what its answer means for the retry schedule.
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { WorkEvent } from '../../engine/types.js';
import type { AllowList } from '../transfer/address-guard.js';
import { guardedLookup, type Resolver } from '../transfer/guarded-lookup.js';
import { deferralOf } from '../work/toolkit/index.js';

export type DeliveryOutcome = 'delivered' | 'retry' | 'disabled' | 'deferred' | 'failed';

/** The Standard Webhooks body: `{type, timestamp, data}`. */
export function webhookBody(event: WorkEvent): string {
  return JSON.stringify({ type: event.type, timestamp: new Date(event.timestamp).toISOString(), data: event.data });
}

export function outcomeOf(status: number, retryAfter: number | undefined, last: boolean): DeliveryOutcome {
  if (status >= 200 && status < 300) return 'delivered';
  if (status === 410) return 'disabled';
  if (deferralOf(status, retryAfter) !== undefined) return 'deferred';
  return last ? 'failed' : 'retry';
}

export function newSecret(): string {
  return 'whsec_' + randomBytes(24).toString('base64');
}

/** `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with the secret's bytes (after `whsec_`). */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64');
}

/** One POST, through the guarded lookup, given up after timeoutMs overall. */
export function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  allow: AllowList,
  resolve: Resolver,
  signal: AbortSignal,
): Promise<{ status: number; retryAfter?: number }> {
  return new Promise((resolvePost, reject) => {
    let refusal: Error | undefined;
    const lookup = guardedLookup(allow, resolve, (error) => (refusal = error));
    const request = (url.protocol === 'https:' ? https : http).request(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, lookup, signal, agent: false },
      (response) => {
        response.resume();
        response.on('end', () => {
          clearTimeout(timer);
          resolvePost({ status: response.statusCode ?? 0, retryAfter: retryAfterOf(response.headers['retry-after']) });
        });
        response.on('error', (error) => reject(refusal ?? error));
      },
    );
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(refusal ?? error);
    });
    request.end(body);
  });
}

function retryAfterOf(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, Math.ceil((date - Date.now()) / 1000)) : undefined;
}
