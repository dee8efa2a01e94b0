// One session's client in a sidecar. Opening is lazy and repeated on whichever process currently
// serves the slot, so a restarted sidecar gets its clients back without the session store.
//
// The slot follows the session's key (ClientOptions.sessionKey, the account pk); a client opened
// before its account is known (a fresh login) takes a random slot, then moves to its account's on
// the first settings export that names the account: the one every later reopening lands on.
import { randomInt, randomUUID } from 'node:crypto';
import {
  UpstreamError,
  type CallOptions,
  type ClientOptions,
  type RealtimeHandlers,
  type RealtimeSubscription,
  type UpstreamClient,
} from '../../../engine/types.js';
import type { SidecarPool } from './pool.js';
import type { SidecarProcess } from './process.js';
import { SIDECAR_CLIENT_NOT_OPEN, unavailable } from './protocol.js';

export class SidecarClient implements UpstreamClient {
  /** Random, so a handle says nothing about the session or the account. */
  readonly handle = randomUUID();
  private settings: Readonly<Record<string, unknown>>;
  private opened?: { readonly process: SidecarProcess; readonly ready: Promise<void> };
  private closed = false;
  private pinned: number;

  constructor(
    private readonly pool: SidecarPool,
    private readonly options: ClientOptions,
    private readonly timeoutMs: number,
  ) {
    this.settings = options.settings;
    const key = options.sessionKey || accountOf(options.settings);
    this.pinned = key ? pool.slotFor(key) : randomInt(pool.size);
  }

  /** The sidecar slot that serves this client. */
  get slot(): number {
    return this.pinned;
  }

  async call(method: string, kwargs: Readonly<Record<string, unknown>>, opts: CallOptions = {}): Promise<unknown> {
    const message = {
      op: 'call' as const,
      client: this.handle,
      method,
      kwargs,
      ...(opts.challengeCode !== undefined ? { challenge_code: opts.challengeCode } : {}),
      ...(opts.page ? { page: { cursor: opts.page.cursor ?? null, size: opts.page.size } } : {}),
    };
    return this.onOpenClient(method, (process) => process.request(message, { timeoutMs: this.timeoutMs, what: method, signal: opts.signal }));
  }

  /** The realtime stream: `message` on each ring, `lost` once when it dies (the caller reconnects). */
  async realtime(handlers: RealtimeHandlers): Promise<RealtimeSubscription> {
    const process = await this.ensureOpen();
    let ended = false;
    const unlisten = process.listen(this.handle, (notice) => {
      if (ended) return;
      if (notice.kind === 'message') return handlers.message();
      ended = true;
      unlisten();
      handlers.lost(notice.reason ?? 'lost');
    });
    try {
      await process.request({ op: 'realtime_start', client: this.handle }, { timeoutMs: this.timeoutMs, what: 'realtime_start' });
    } catch (error) {
      ended = true;
      unlisten();
      throw error;
    }
    return {
      stop: async () => {
        if (ended) return;
        ended = true;
        unlisten();
        if (process.alive)
          await process.request({ op: 'realtime_stop', client: this.handle }, { timeoutMs: this.timeoutMs, what: 'realtime_stop' }).catch(() => undefined);
      },
    };
  }

  account(): string | undefined {
    return accountOf(this.settings);
  }

  async exportSettings(): Promise<Record<string, unknown>> {
    const settings = (await this.onOpenClient('export', (process) =>
      process.request({ op: 'export', client: this.handle }, { timeoutMs: this.timeoutMs, what: 'export' }),
    )) as Record<string, unknown>;
    // What the store persists is what a reopened client should start from.
    this.settings = settings;
    this.followAccount();
    return settings;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.letGo();
  }

  /** A keyless client moves to its account's slot once logged in; the old sidecar lets it go. */
  private followAccount(): void {
    const account = this.options.sessionKey ? undefined : accountOf(this.settings);
    if (!account || this.pool.slotFor(account) === this.pinned) return;
    this.pinned = this.pool.slotFor(account);
    void this.letGo(); // the next call opens the client from the export on the new slot
  }

  /** Forgets the opened client and has its sidecar (if still running) close it; never fails. */
  private async letGo(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (!opened?.process.alive) return;
    await opened.process.request({ op: 'close', client: this.handle }, { timeoutMs: this.timeoutMs, what: 'close' }).catch(() => undefined);
  }

  private async onOpenClient<T>(what: string, run: (process: SidecarProcess) => Promise<T>): Promise<T> {
    if (this.closed) throw unavailable(`upstream call ${what} on a closed client`);
    const process = await this.ensureOpen();
    try {
      return await run(process);
    } catch (error) {
      // The sidecar lost the client (it should not): open it again once and retry.
      if (!(error instanceof UpstreamError) || error.excType !== SIDECAR_CLIENT_NOT_OPEN) throw error;
      this.opened = undefined;
      return run(await this.ensureOpen());
    }
  }

  private async ensureOpen(): Promise<SidecarProcess> {
    const process = await this.pool.process(this.pinned);
    if (this.opened?.process !== process) {
      const ready = process
        .request(
          {
            op: 'open',
            client: this.handle,
            settings: this.settings,
            proxy: this.options.proxy || null,
            locale: this.options.locale || null,
            timezone: this.options.timezone ?? null,
            ...(this.options.upgradeAppProfile ? { upgrade_app_profile: true } : {}),
          },
          { timeoutMs: this.timeoutMs, what: 'open' },
        )
        .then(() => undefined);
      this.opened = { process, ready };
      ready.catch(() => {
        if (this.opened?.ready === ready) this.opened = undefined;
      });
    }
    await this.opened.ready;
    return process;
  }
}

/** The account a settings export is logged in as (the same pk the engine passes as sessionKey). */
function accountOf(settings: Readonly<Record<string, unknown>>): string | undefined {
  const auth = (settings.authorization_data ?? {}) as Record<string, unknown>;
  const cookies = (settings.cookies ?? {}) as Record<string, unknown>;
  const pk = auth.ds_user_id ?? cookies.ds_user_id;
  return typeof pk === 'string' || typeof pk === 'number' ? String(pk) || undefined : undefined;
}
