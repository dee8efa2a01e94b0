// The anonymous client: one upstream client with no session, opened at its first call, for the
// routes that need no login. Its calls run one at a time (an upstream client is not safe for
// concurrent use), in a lane beside the sessions', and are measured as a session's are. How the
// engine closes an upstream client, this one and the sessions' (./sessions.ts), is here too.
import type { Lanes } from './lane.js';
import type { Metrics } from './metrics.js';
import type { CallOptions, Logger, SessionClient, UpstreamAdapter, UpstreamClient } from './types.js';
import { UpstreamError } from './types.js';
import { errorName } from './log.js';

/** Its lane's key among the sessions' ids, which are base64url (./session-record.ts): none holds a NUL. */
const ANONYMOUS = '\u0000anonymous';

export class AnonymousClient {
  private opened?: Promise<UpstreamClient>;

  constructor(
    private readonly upstream: UpstreamAdapter,
    private readonly metrics: Metrics,
    private readonly lanes: Lanes,
  ) {}

  client(): SessionClient {
    return {
      call: (method, kwargs, opts) =>
        this.lanes.run(ANONYMOUS, async () => {
          this.opened ??= this.upstream.open({ settings: {} });
          return this.measured(await this.opened, method, kwargs, opts);
        }),
    };
  }

  close(log: Logger): Promise<void> {
    return closeQuietly(this.opened, log);
  }

  private async measured(client: UpstreamClient, method: string, kwargs: Readonly<Record<string, unknown>>, opts?: CallOptions): Promise<unknown> {
    const started = performance.now();
    let outcome = 'ok';
    try {
      return await client.call(method, kwargs, opts);
    } catch (error) {
      outcome = error instanceof UpstreamError ? error.excType : 'error';
      throw error;
    } finally {
      this.metrics.observeUpstream(method, outcome, (performance.now() - started) / 1000);
    }
  }
}

/** A client that fails to close is logged, not thrown: what closes it (an eviction, the app's close) goes on. */
export async function closeQuietly(client: Promise<UpstreamClient> | undefined, log: Logger): Promise<void> {
  if (!client) return;
  try {
    await (await client).close();
  } catch (error) {
    log.warn('closing an upstream client failed', { error: errorName(error) });
  }
}
