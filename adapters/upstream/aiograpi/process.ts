// One sidecar process: spawn, frame lines, match answers to requests by id, time calls out, and
// fail every call in flight when the process dies.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { delimiter } from 'node:path';
import { createInterface } from 'node:readline';
import type { ResolvedOptions } from './options.js';
import { parseAnswer, parseNotice, timedOut, toUpstreamError, unavailable, type Notice, type Request } from './protocol.js';

interface Pending {
  readonly what: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly cleanup: () => void;
}

export interface RequestOptions {
  readonly timeoutMs: number;
  /** What to call the request in a timeout or death message (the upstream method for calls). */
  readonly what: string;
  readonly signal?: AbortSignal;
}

export class SidecarProcess {
  readonly startedAt = Date.now();
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending = new Map<number, Pending>();
  /** Realtime notices by client handle. */
  private readonly listeners = new Map<string, (notice: Notice) => void>();
  private nextId = 1;
  private dead: string | undefined;
  private stopping = false;

  constructor(
    private readonly options: ResolvedOptions,
    readonly index: number,
    /** Runs at death before any call in flight is failed, so a retry already sees the back-off. */
    private readonly onDeath: (process: SidecarProcess) => void = () => undefined,
  ) {
    this.child = spawn(options.python, ['-u', options.sidecarPath], { env: sidecarEnv(options), stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.die(`exited with ${signal ? `signal ${signal}` : `code ${code}`}`);
        resolve({ code, signal });
      });
      this.child.once('error', (error) => {
        this.die(`could not run ${options.python}: ${error.message}`);
        resolve({ code: null, signal: null });
      });
    });
    this.child.stdin.on('error', () => undefined); // a dead sidecar's pipe; the exit handler reports it
    createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on('line', (line) => this.onLine(line));
    createInterface({ input: this.child.stderr, crlfDelay: Infinity }).on('line', (line) => this.onLog(line));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return this.dead === undefined;
  }

  /** Why the process is gone, when it is. */
  get deathReason(): string | undefined {
    return this.dead;
  }

  get wasStopped(): boolean {
    return this.stopping;
  }

  request(message: Request, options: RequestOptions): Promise<unknown> {
    if (this.dead !== undefined) return Promise.reject(unavailable(`aiograpi sidecar ${this.dead}; retry the request`));
    if (options.signal?.aborted) return Promise.reject(options.signal.reason ?? new Error('aborted'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => this.abandon(id, options.signal?.reason ?? new Error('aborted'));
      const timer = setTimeout(() => this.abandon(id, timedOut(options.what, options.timeoutMs)), options.timeoutMs);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const cleanup = (): void => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      this.pending.set(id, { what: options.what, resolve, reject, cleanup });
      this.write({ id, ...message });
    });
  }

  /** Ends stdin (the sidecar closes its clients and exits), then escalates if it lingers. */
  async stop(graceMs = 2000): Promise<void> {
    this.stopping = true;
    if (this.dead === undefined) this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    this.child.kill(signal);
  }

  private write(message: Record<string, unknown>): void {
    if (this.dead !== undefined) return;
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** The caller stops waiting; the sidecar cancels the task so the session's lock is freed. */
  private abandon(id: number, error: Error): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    entry.cleanup();
    this.write({ op: 'cancel', target: id });
    entry.reject(error);
  }

  /** Hears a client's realtime notices; a death of this process is told as a lost stream. */
  listen(handle: string, listener: (notice: Notice) => void): () => void {
    this.listeners.set(handle, listener);
    return () => void (this.listeners.get(handle) === listener && this.listeners.delete(handle));
  }

  private onLine(line: string): void {
    const notice = parseNotice(line);
    if (notice) return void this.listeners.get(notice.client)?.(notice);
    const answer = parseAnswer(line);
    if (!answer) {
      this.options.log?.warn('aiograpi sidecar wrote a line that is not an answer', { sidecar: this.index, length: line.length });
      return;
    }
    const entry = typeof answer.id === 'number' ? this.pending.get(answer.id) : undefined;
    if (!entry) {
      if (!answer.ok) this.options.log?.warn('aiograpi sidecar protocol error', { sidecar: this.index, detail: answer.error.message });
      return; // an answer to a request that timed out or was aborted
    }
    this.pending.delete(answer.id as number);
    entry.cleanup();
    if (answer.ok) entry.resolve(answer.result);
    else entry.reject(toUpstreamError(answer.error));
  }

  /** The sidecar logs `LEVEL name: message` (sidecar_redact.py); its level picks the service log's. */
  private onLog(line: string): void {
    if (!line.trim()) return;
    const fields = { sidecar: this.index, line: line.slice(0, 2000) };
    const level = /^(DEBUG|INFO|WARNING|ERROR|CRITICAL) /.exec(line)?.[1];
    if (level === 'DEBUG' || level === 'INFO') this.options.log?.info('aiograpi sidecar', fields);
    else if (level === 'ERROR' || level === 'CRITICAL') this.options.log?.error('aiograpi sidecar', fields);
    else this.options.log?.warn('aiograpi sidecar', fields); // WARNING, or a line Python wrote without logging
  }

  private die(reason: string): void {
    if (this.dead !== undefined) return;
    this.dead = reason;
    this.onDeath(this);
    for (const [client, listener] of this.listeners) listener({ event: 'realtime', client, kind: 'lost', reason: 'SidecarDied' });
    this.listeners.clear();
    for (const [id, entry] of this.pending) {
      this.pending.delete(id);
      entry.cleanup();
      entry.reject(unavailable(`aiograpi sidecar ${reason} while ${entry.what} was running; retry the request`));
    }
  }
}

/** The sidecar gets the environment minus socialgate's own settings (keys, store URLs): it needs none. */
function sidecarEnv(options: ResolvedOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('SOCIALGATE_')) env[key] = value;
  const path = [...options.pythonPath, ...(process.env.PYTHONPATH ? process.env.PYTHONPATH.split(delimiter) : [])].filter(Boolean);
  if (path.length) env.PYTHONPATH = path.join(delimiter);
  env.PYTHONUNBUFFERED = '1';
  env.PYTHONDONTWRITEBYTECODE = '1';
  env.PYTHONIOENCODING = 'utf-8';
  env.SOCIALGATE_SIDECAR_LOG_LEVEL = options.logLevel;
  return env;
}
