// Realtime streams for watched sessions, where the installed library has them (aiograpi 1.1 and
// later: MQTT direct messages). The instance that runs a session's scheduled checks keeps its
// stream; each ring triggers a check of the inbox at once (the payload's shape is the platform's
// private business, the inbox's is documented), and every (re)connect is followed by one check,
// since such streams are known to die silently or drop what came while they reconnected. A stream
// that dies is reconnected after a back-off; one whose session's checks moved to another instance
// (or stopped) is closed after a few missed intervals. The scheduled polls go on as the
// reconciliation, so nothing depends on the stream alone.
import type { Logger, SessionRecord, SessionService, RealtimeSubscription } from '../../engine/types.js';
import type { RealtimeLinks, Watchers } from './watch.js';
import { stepOf } from '../../adapters/work/toolkit/index.js';

const MESSAGES = 'direct.message.created' as const;
const RECONNECT_MS = [5_000, 30_000, 120_000, 300_000];

interface Link {
  record: SessionRecord;
  subscription?: RealtimeSubscription;
  /** When a scheduled check last asked to keep it. */
  keptAt: number;
  /** The watch's interval, as the last check had it. */
  intervalMs?: number;
  failures: number;
  retry?: NodeJS.Timeout;
  /** A check is running or queued for a ring: rings during it coalesce into one more. */
  checking?: Promise<void>;
  again?: boolean;
  connects: number;
}

export interface RealtimeOptions {
  readonly sessions: SessionService;
  readonly watchers: Watchers;
  readonly log: Logger;
  /** Milliseconds without a scheduled check before a stream is closed (the watch moved or stopped). */
  readonly idleMs: (intervalMs: number) => number;
  readonly counted?: (what: 'connect' | 'lost' | 'ring') => void;
}

export class Realtime implements RealtimeLinks {
  private readonly links = new Map<string, Link>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly options: RealtimeOptions) {
    this.sweeper = setInterval(() => this.sweep(), 10_000);
    this.sweeper.unref();
  }

  async keep(record: SessionRecord, ref: string, kinds: readonly string[], intervalMs: number): Promise<boolean> {
    if (!kinds.includes(MESSAGES)) {
      await this.drop(ref);
      return false;
    }
    const link = this.links.get(ref) ?? this.open(ref, record);
    link.record = record;
    link.keptAt = Date.now();
    link.intervalMs = intervalMs;
    return link.subscription !== undefined;
  }

  async drop(ref: string): Promise<void> {
    const link = this.links.get(ref);
    if (!link) return;
    this.links.delete(ref);
    if (link.retry) clearTimeout(link.retry);
    await link.subscription?.stop().catch(() => undefined);
  }

  /** Live streams in this instance (metrics). */
  get size(): number {
    return [...this.links.values()].filter((link) => link.subscription).length;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.links.keys()].map((ref) => this.drop(ref)));
  }

  private open(ref: string, record: SessionRecord): Link {
    const link: Link = { record, keptAt: Date.now(), failures: 0, connects: 0 };
    this.links.set(ref, link);
    void this.connect(ref, link);
    return link;
  }

  private async connect(ref: string, link: Link): Promise<void> {
    link.retry = undefined;
    if (this.links.get(ref) !== link) return;
    try {
      const subscription = await this.options.sessions.realtime(link.record, {
        message: () => this.ring(ref, link),
        lost: (reason) => this.lost(ref, link, reason),
      });
      if (!subscription) return void this.links.delete(ref); // the upstream has no stream after all: polling alone
      if (this.links.get(ref) !== link) return void (await subscription.stop());
      link.subscription = subscription;
      link.failures = 0;
      link.connects++;
      this.options.counted?.('connect');
      await this.options.watchers.sourceIs(ref, 'realtime').catch(() => undefined);
      this.ring(ref, link); // reconcile: what came while it was down
    } catch (error) {
      this.lost(ref, link, error instanceof Error ? error.name : 'error');
    }
  }

  private lost(ref: string, link: Link, reason: string): void {
    link.subscription = undefined;
    if (this.links.get(ref) !== link) return;
    this.options.counted?.('lost');
    void this.options.watchers.sourceIs(ref, 'poll').catch(() => undefined);
    const wait = stepOf(RECONNECT_MS, ++link.failures);
    this.options.log.warn('a realtime stream was lost; reconnecting', { ref, reason, in_ms: wait });
    link.retry = setTimeout(() => void this.connect(ref, link), wait);
    link.retry.unref();
  }

  /** One check at a time per session; rings during it make one more after it. */
  private ring(ref: string, link: Link): void {
    this.options.counted?.('ring');
    if (link.checking) {
      link.again = true;
      return;
    }
    link.checking = this.options.watchers
      .checkNow(ref, link.record, [MESSAGES])
      .catch((error) => this.options.log.warn('a realtime check failed', { ref, error: error instanceof Error ? error.name : 'error' }))
      .finally(() => {
        link.checking = undefined;
        if (link.again) {
          link.again = false;
          this.ring(ref, link);
        }
      });
  }

  private sweep(): void {
    const now = Date.now();
    for (const [ref, link] of this.links) if (now - link.keptAt > this.options.idleMs(link.intervalMs ?? 60_000)) void this.drop(ref);
  }
}
