// The per-request state every step reads and writes: what route, what the client sent, what has
// to be cleaned up after the response.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import type { InputBag, SessionRecord, UploadedFile } from '../types.js';

export class RequestState {
  readonly bag: InputBag = {};
  files: UploadedFile[] = [];
  session?: SessionRecord;
  private readonly cleanups: (() => Promise<void> | void)[] = [];
  private workdirPromise?: Promise<string>;

  constructor(readonly requestId: string, private readonly response?: ServerResponse) {}

  /** A private folder for this request (mode 0700 by mkdtemp), removed after the response. */
  workdir(): Promise<string> {
    this.workdirPromise ??= mkdtemp(join(tmpdir(), 'socialgate-')).then((dir) => {
      this.defer(() => rm(dir, { recursive: true, force: true }));
      return dir;
    });
    return this.workdirPromise;
  }

  /** Cleanup runs once the response is finished or aborted; most requests never register any. */
  defer(cleanup: () => Promise<void> | void): void {
    if (this.cleanups.length === 0) this.response?.once('close', () => void this.cleanup());
    this.cleanups.push(cleanup);
  }

  /** Runs every cleanup, newest first; a failing cleanup never hides the others. */
  async cleanup(): Promise<void> {
    for (const task of this.cleanups.splice(0).reverse()) {
      try {
        await task();
      } catch {
        // a temp file that is already gone is fine
      }
    }
  }
}
