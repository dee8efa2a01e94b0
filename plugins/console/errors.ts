// The console's own errors (the page, its key form, sessions by ref).
import { raiserFor, type ServiceErrorRow } from '../../engine/service-errors.js';
import type { RouteSpec } from '../../engine/types.js';

const byConsoleRef = (route: RouteSpec): boolean => route.area === 'console' && route.params.some((p) => p.name === 'ref');

export const CONSOLE_ERRORS = {
  ConsoleSessionNotFound: {
    status: 404,
    on: byConsoleRef,
    when: 'No session of the store has this ref (revoked, expired, or never listed).',
    hint: 'GET /console/sessions lists the refs.',
  },
  ConsoleNotBuilt: {
    status: 503,
    on: (route) => route.key === 'GET /console',
    when: 'The console page has not been built into dist/console.',
    hint: 'Run `npm run build` (npm ci runs it).',
  },
  ApiKeyWrong: {
    status: 401,
    on: (route) => route.key === 'POST /console/key',
    when: "The key typed into the console is not this service's API key.",
    hint: 'The key is SOCIALGATE_API_KEY of this service, or a named key with the operator scope (`socialgate keys add NAME --scope operator`).',
  },
} as const satisfies Record<string, ServiceErrorRow>;

export const serviceError = raiserFor(CONSOLE_ERRORS);
