// Reads a value until it is what a test waits for; the error names what was awaited and shows the last value.
import { sleep } from '../support/process.js';
import type { Client } from './http.js';

export async function poll<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 60_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await sleep(everyMs);
  }
}

/** GET /jobs/status until the job is as wanted (every `everyMs`, 20 s at most); the error names the job and shows it. */
export function untilJob<J>(http: Pick<Client, 'request'>, id: string, wanted: (job: J) => boolean, ms = 20_000, everyMs = 25): Promise<J> {
  return poll(`job ${id}`, async () => (await http.request('GET', '/jobs/status', { query: { id } })).body as J, wanted, ms, everyMs);
}
