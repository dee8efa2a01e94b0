// The named API keys' routes' own errors (a name taken is the key ring's, in the engine).
import { raiserFor, type ServiceErrorRow } from '../../engine/service-errors.js';

export const KEY_ERRORS = {
  ApiKeyNotFound: { status: 404, on: (route) => route.key === 'DELETE /keys', when: 'No key has that name.', hint: 'GET /keys lists them.' },
} as const satisfies Record<string, ServiceErrorRow>;

export const serviceError = raiserFor(KEY_ERRORS);
