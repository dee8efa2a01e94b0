// Reads a value until it is what a test waits for; the error names what was awaited and shows the last value.
import { sleep } from '../support/process.js';

export async function poll<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, ms = 60_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await sleep(everyMs);
  }
}
