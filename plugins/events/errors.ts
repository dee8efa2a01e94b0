// The events module's own errors (watchers, the stream, replays).
import { raiserFor, type ServiceErrorRow } from '../../engine/service-errors.js';

export const EVENT_ERRORS = {
  WatchNotFound: {
    status: 404,
    on: (route) => route.key === 'DELETE /events/watch',
    when: 'The session is not watched (GET /events/watch answers `watching: false`).',
    hint: 'POST /events/watch starts watching it.',
  },
  EventNotFound: {
    status: 404,
    on: (route) => route.key === 'POST /webhooks/replay',
    when: "The event is not in the endpoint's delivery log, or no longer in its session's retained log.",
    hint: 'GET /webhooks/deliveries lists the events sent to the endpoint.',
  },
  EventsUnavailable: {
    status: 503,
    on: (route) => route.area === 'events' || route.area === 'webhooks' || route.key === 'POST /console/sessions/watch',
    when: 'The instance was built without the background layer.',
  },
} as const satisfies Record<string, ServiceErrorRow>;

export const serviceError = raiserFor(EVENT_ERRORS);
