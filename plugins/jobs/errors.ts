// The jobs' own errors.
import { raiserFor, type ServiceErrorRow } from '../../engine/service-errors.js';
import type { RouteSpec } from '../../engine/types.js';
import { consoleWork } from '../pools/errors.js';

/** The scheduled writes' routes, and the writes that may be scheduled (they keep their item in the work store). */
const scheduledWrites = (route: RouteSpec): boolean => route.area === 'writes' || route.params.some((p) => p.name === 'publish_at');

export const JOB_ERRORS = {
  JobNotFound: { status: 404, on: (route) => route.area === 'jobs', when: 'No job has this id.', hint: 'GET /jobs lists the jobs of a session or pool.' },
  JobsUnavailable: {
    status: 503,
    on: (route) => route.area === 'jobs' || route.area === 'pools' || consoleWork(route) || scheduledWrites(route),
    when: 'The instance was built without the background layer.',
  },
} as const satisfies Record<string, ServiceErrorRow>;

export const serviceError = raiserFor(JOB_ERRORS);
