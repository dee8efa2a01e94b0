// Server-side timing of single requests, for the policy's cost (issue 25, point 10): the throughput
// rounds cannot resolve a few microseconds (on this machine two rounds of the same server differ by
// 5-10%), so the bench also sends one connection's requests in pairs, the counted session and the
// uncounted one in turn (ABAB, the order turning each pair), and the server process times each from
// its 'request' event until its response is written (its own work, without the client's). Pairs one
// request apart see the same machine speed, so the median of the pairs' differences is steady where
// the rounds' medians are not. The same pairs with the uncounted session on both sides (A/A) give
// the method's own floor.
import { request, Agent, type Server } from 'node:http';

/** Times, in µs, of the requests the server saw while timing was on, by their `x-bench-label`. */
export type Timed = Record<string, number[]>;

/** In the server's process: starts timing on 'time', stops on 'timed' and answers the times (each message answered). */
export function serverTiming(server: Server): (message: unknown) => boolean {
  let timed: Timed = {};
  const timer = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const label = req.headers['x-bench-label'];
    if (typeof label !== 'string') return;
    const started = process.hrtime.bigint();
    const end = res.end;
    // Until the response is handed to the socket (end() returns after its write): the write's
    // completion, later, is the kernel's and the event loop's, the same for every request.
    res.end = function (this: typeof res, ...args: Parameters<typeof res.end>) {
      const ended = end.apply(this, args);
      (timed[label] ??= []).push(Number(process.hrtime.bigint() - started) / 1000);
      return ended;
    } as typeof res.end;
  };
  return (message) => {
    if (message === 'time') {
      timed = {};
      server.prependListener('request', timer);
    } else if (message === 'timed') server.off('request', timer);
    else return false;
    process.send?.({ timed }); // 'time' is answered too: the first timed request must not overtake it
    return true;
  };
}

export interface PairedFigures {
  /** Median server time of each side, µs. */
  readonly a: number;
  readonly b: number;
  /** Median of the pairs' differences (a − b), µs. */
  readonly difference: number;
  /**
   * Mean of the pairs' differences without the 1% at each end, µs: what throughput pays. The median
   * leaves out a cost that falls on a few calls only (a reservation of slots once in up to 256
   * counted calls, the collection of the garbage the counting leaves); the trimmed ends are the machine's
   * stalls, which fall on either side.
   */
  readonly meanDifference: number;
  readonly pairs: number;
}

/**
 * `pairs` pairs on one keep-alive connection: session `a` labelled "a", then `b` labelled "b" (the
 * order turning each pair); the server's own times come back through `ask`.
 */
export async function pairedTiming(
  port: number,
  path: string,
  a: string,
  b: string,
  pairs: number,
  ask: (message: string) => Promise<Timed>,
): Promise<PairedFigures> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = (session: string, label: string) =>
    new Promise<void>((resolve, reject) => {
      const headers = { 'x-session-id': session, 'x-bench-label': label };
      request({ host: '127.0.0.1', port, path, agent, headers }, (res) => res.resume().on('end', resolve))
        .on('error', reject)
        .end();
    });
  try {
    for (let i = 0; i < 2000; i++) await get(i % 2 ? a : b, 'warm'); // unmeasured: the JIT first
    await ask('time');
    for (let i = 0; i < pairs; i++) {
      if (i % 2) await get(a, 'a').then(() => get(b, 'b'));
      else await get(b, 'b').then(() => get(a, 'a'));
    }
    const timed = await ask('timed');
    const [as, bs] = [timed.a ?? [], timed.b ?? []];
    const differences = as.map((t, i) => t - (bs[i] ?? t));
    return {
      a: median(as),
      b: median(bs),
      difference: median(differences),
      meanDifference: trimmedMean(differences, 0.01),
      pairs: Math.min(as.length, bs.length),
    };
  } finally {
    agent.destroy();
  }
}

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The mean without the `share` lowest and highest values (each end); NaN for none. */
export function trimmedMean(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const cut = Math.floor(sorted.length * share);
  const kept = sorted.slice(cut, sorted.length - cut);
  return kept.length === 0 ? Number.NaN : kept.reduce((sum, value) => sum + value, 0) / kept.length;
}

/**
 * The 95% interval of a list's median by the bootstrap: `draws` resamples of the list (with
 * replacement), each one's median, and the 2.5th and 97.5th percentiles of those. The resampling's
 * random numbers come from `seed` (mulberry32), so the same list always gives the same interval.
 */
export function medianInterval(values: readonly number[], draws = 2_000, seed = 1): readonly [number, number] {
  if (values.length === 0) return [Number.NaN, Number.NaN];
  const random = mulberry32(seed);
  const medians = Array.from({ length: draws }, () => median(values.map(() => values[Math.floor(random() * values.length)])));
  medians.sort((a, b) => a - b);
  return [medians[Math.floor(draws * 0.025)], medians[Math.ceil(draws * 0.975) - 1]];
}

/** A small seeded generator of numbers in [0, 1): the bootstrap's, so a bench's figures repeat from its data. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
