// The jobs' own errors.
import { raiserFor, type ServiceErrorRow } from '../../engine/service-errors.js';
import { consoleWork } from '../pools/errors.js';

export const JOB_ERRORS = {
  JobNotFound: { status: 404, on: (route) => route.area === 'jobs', when: 'No job has this id.', hint: 'GET /jobs lists the jobs of a session or pool.' },
  JobsUnavailable: { status: 503, on: (route) => route.area === 'jobs' || route.area === 'pools' || consoleWork(route), when: 'The instance was built without the background layer.' },
} as const satisfies Record<string, ServiceErrorRow>;

export const serviceError = raiserFor(JOB_ERRORS);
