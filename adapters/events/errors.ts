// The webhooks' own errors, raised by the delivery adapter and declared by the events module's webhooks.
import { raiserFor, type ServiceErrorRow } from '../../engine/service-errors.js';

export const WEBHOOK_ERRORS = {
  WebhookNotFound: {
    status: 404,
    on: (route) => route.area === 'webhooks' && route.params.some((p) => p.name === 'id'),
    when: 'No webhook endpoint has this id.',
    hint: 'GET /webhooks lists the endpoints.',
  },
  WebhookUrlRefused: {
    status: 422,
    on: (route) => route.key === 'POST /webhooks',
    when:
      'The endpoint URL cannot be delivered to: not http(s), credentials in it, or an address the guard ' +
      'refuses (loopback, private) without an allow-list entry.',
    hint: 'Use a public http(s) URL, or allow-list the host with SOCIALGATE_FETCH_ALLOW.',
  },
} as const satisfies Record<string, ServiceErrorRow>;

export const serviceError = raiserFor(WEBHOOK_ERRORS);
