// POST /sandbox/activity: one happening of the live sandbox, now (manifest/sandbox.yaml; the route
// exists only when the upstream is the sandbox).
import { invalidParams, serviceError } from '../../engine/service-errors.js';
import type { Plugin, UpstreamAdapter } from '../../engine/types.js';
import { LiveError, type LiveKind, type LiveRequest } from '../../adapters/upstream/sandbox/live.js';
import type { Happened } from '../../adapters/upstream/sandbox/live.js';

interface Living {
  happen(account: string, request: LiveRequest): Happened;
}

const living = (upstream: UpstreamAdapter): upstream is UpstreamAdapter & Living => typeof (upstream as Partial<Living>).happen === 'function';

export const sandboxPlugins: Readonly<Record<string, Plugin>> = Object.freeze({
  'sandbox.activity': {
    uses: [],
    async handle({ input, session, services }) {
      if (!session) throw serviceError('SessionRequired', 'Name the account it happens to with X-Session-ID');
      if (!living(services.upstream)) throw serviceError('NoSuchRoute', 'POST /sandbox/activity exists on the sandbox only');
      const request: LiveRequest = {
        kind: input.kind as LiveKind,
        from: typeof input.from === 'string' ? input.from : undefined,
        mediaPk: input.media_pk !== undefined ? String(input.media_pk) : undefined,
        text: typeof input.text === 'string' ? input.text : undefined,
      };
      try {
        return services.upstream.happen(session.account.pk, request);
      } catch (error) {
        if (error instanceof LiveError) throw invalidParams([{ param: error.param, problem: error.message }]);
        throw error;
      }
    },
  },
});
