// POST /sandbox/activity: one happening of the live sandbox, now (manifest/sandbox.yaml; the route
// exists only when the upstream is the sandbox). The world is reached through the upstream port
// (`happen`), never by importing the sandbox: the plugin knows no adapter.
import { serviceError } from '../../engine/service-errors.js';
import type { HappeningRequest, Plugin } from '../../engine/types.js';

export const sandboxPlugins: Readonly<Record<string, Plugin>> = Object.freeze({
  'sandbox.activity': {
    uses: [],
    async handle({ input, session, services }) {
      if (!session) throw serviceError('SessionRequired', 'Name the account it happens to with X-Session-ID');
      const { upstream } = services;
      if (!upstream.happen) throw serviceError('NoSuchRoute', 'POST /sandbox/activity exists on the sandbox only');
      const request: HappeningRequest = {
        kind: String(input.kind),
        from: typeof input.from === 'string' ? input.from : undefined,
        mediaPk: input.media_pk !== undefined ? String(input.media_pk) : undefined,
        text: typeof input.text === 'string' ? input.text : undefined,
      };
      return upstream.happen(session.account.pk, request);
    },
  },
});
