// The sidecar processes: started lazily, a session pinned to one by a stable hash, restarted after a
// death with back-off (a sidecar that keeps dying quickly waits longer each time), stopped on close.
import { createHash } from 'node:crypto';
import type { ResolvedOptions } from './options.js';
import { SidecarProcess, type RequestOptions } from './process.js';
import { unavailable, type PingResult, type Request } from './protocol.js';

/** A sidecar that lived this long before dying counts as healthy: its restart waits the least. */
const HEALTHY_LIFETIME_MS = 30_000;

interface Slot {
  process?: SidecarProcess;
  starting?: Promise<SidecarProcess>;
  info?: PingResult;
  quickDeaths: number;
  notBefore: number;
}

export class SidecarPool {
  private readonly slots: Slot[];
  private closed = false;

  constructor(private readonly options: ResolvedOptions) {
    this.slots = Array.from({ length: options.processes }, () => ({ quickDeaths: 0, notBefore: 0 }));
  }

  get size(): number {
    return this.slots.length;
  }

  /** The slot a session key always maps to (the same on every start and every instance). */
  slotFor(key: string): number {
    return createHash('sha256').update(key).digest().readUInt32BE(0) % this.slots.length;
  }

  /** What the sidecar reported at start (library version, import error), once one has started. */
  info(): PingResult | undefined {
    return this.slots.find((s) => s.info)?.info;
  }

  pids(): (number | undefined)[] {
    return this.slots.map((s) => (s.process?.alive ? s.process.pid : undefined));
  }

  /** The live process of a slot, starting one (after any back-off) when there is none. */
  process(index: number): Promise<SidecarProcess> {
    if (this.closed) return Promise.reject(unavailable('the aiograpi adapter is closed'));
    const slot = this.slots[index];
    if (slot.process?.alive) return Promise.resolve(slot.process);
    slot.starting ??= this.start(index, slot).finally(() => {
      slot.starting = undefined;
    });
    return slot.starting;
  }

  async request(index: number, message: Request, options: RequestOptions): Promise<unknown> {
    const process = await this.process(index);
    return process.request(message, options);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        const starting = slot.starting?.catch(() => undefined);
        await starting;
        await slot.process?.stop();
      }),
    );
  }

  private async start(index: number, slot: Slot): Promise<SidecarProcess> {
    const wait = slot.notBefore - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (this.closed) throw unavailable('the aiograpi adapter is closed');
    const process = new SidecarProcess(this.options, index, (dead) => this.onExit(slot, dead));
    let ping: PingResult;
    try {
      ping = (await process.request({ op: 'ping' }, { timeoutMs: this.options.startTimeoutMs, what: 'sidecar start' })) as PingResult;
    } catch (error) {
      process.kill();
      throw error;
    }
    slot.process = process;
    slot.info = ping;
    this.options.log?.info('aiograpi sidecar started', { sidecar: index, pid: ping.pid, version: ping.version, python: ping.python });
    return process;
  }

  private onExit(slot: Slot, process: SidecarProcess): void {
    if (process.wasStopped || this.closed) return;
    const lived = Date.now() - process.startedAt;
    slot.quickDeaths = lived < HEALTHY_LIFETIME_MS ? slot.quickDeaths + 1 : 1;
    const delay = Math.min(this.options.restartDelayMs * 2 ** (slot.quickDeaths - 1), this.options.maxRestartDelayMs);
    slot.notBefore = Date.now() + delay;
    this.options.log?.error('aiograpi sidecar died; the next call restarts it', { sidecar: process.index, reason: process.deathReason, restartInMs: delay });
  }
}
