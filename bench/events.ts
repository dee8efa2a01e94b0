// Events figures for the closing note of issue 11 (`npm run build && node dist/bench/events.js`;
// prints, asserts nothing). One process serves the sandbox, alive on a clock, with 1,000 crowd
// accounts logged in and watched, and one webhook endpoint on a loopback receiver (signatures
// checked with `standardwebhooks`). Figures: events delivered per second, the latency from the
// sandbox's happening to the receiver (p50, p99), and the service's RSS with 1,000 watched sessions.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { composeApp } from '../bin/compose.js';
import { testConfig } from '../engine/config.js';
import { createSandbox } from '../adapters/upstream/sandbox/index.js';
import { serve } from '../test/helpers/http.js';
import { startReceiver } from '../test/support/webhook-receiver.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000);
const LIVE_SECONDS = Number(process.env.BENCH_LIVE_SECONDS ?? 5);
const WATCH_SECONDS = Number(process.env.BENCH_WATCH_SECONDS ?? 5);
const RUN_SECONDS = Number(process.env.BENCH_RUN_SECONDS ?? 40);

export async function benchEvents(): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), 'sg-bench-events-'));
  const receiver = await startReceiver();
  try {
    const sandbox = createSandbox({ seed: 1, liveSeconds: LIVE_SECONDS });
    const extra = { FETCH_ALLOW: '127.0.0.1', WATCH_FLOOR_SECONDS: '1', SANDBOX_LIVE_SECONDS: String(LIVE_SECONDS) };
    const app = await composeApp(testConfig({ store: `sqlite://${join(dir, 'sessions.sqlite')}`, dataDir: dir, cacheSize: SESSIONS * 2, extra }), {
      upstream: sandbox,
    });
    const http = await serve(app);
    const hook = (await http.request('POST', '/webhooks', { form: { url: receiver.url } })).body as { secret: string };
    receiver.secret = hook.secret;
    const rssBefore = process.memoryUsage().rss;
    const loginStarted = performance.now();
    for (let i = 0; i < SESSIONS; i++) {
      const pk = String(6_100_000_001 + i);
      const session = (await http.request('POST', '/auth/login/by/sessionid', { form: { sessionid: sandbox.sessionIdFor(pk) } })).body as string;
      const watched = await http.request('POST', '/events/watch', { form: { interval_seconds: String(WATCH_SECONDS) }, headers: { 'x-session-id': session } });
      if (watched.status !== 200) throw new Error(`watch ${pk}: ${watched.status} ${watched.text}`);
    }
    const loginSeconds = (performance.now() - loginStarted) / 1000;
    const rss: number[] = [];
    const sampler = setInterval(() => rss.push(process.memoryUsage().rss), 1000);
    const from = Date.now() + 2 * WATCH_SECONDS * 1000; // past the first round of checks and ticks
    await new Promise((resolve) => setTimeout(resolve, 2 * WATCH_SECONDS * 1000 + RUN_SECONDS * 1000));
    clearInterval(sampler);
    const window = receiver.deliveries.filter((d) => d.receivedAt >= from);
    // A happening falls 20 ms after a multiple of the live interval; its event carries that second.
    const latencies = window.map((d) => d.receivedAt - (Date.parse(d.timestamp) + 20)).sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
    const mb = (bytes: number) => (bytes / 1048576).toFixed(0);
    const status = (await http.request('GET', '/metrics')).text;
    const lag = /socialgate_watch_lag_seconds\{stat="max"\} ([\d.e-]+)/.exec(status)?.[1];
    await http.close();
    return {
      'sessions logged in and watched': String(SESSIONS),
      'login + watch, sessions/s': (SESSIONS / loginSeconds).toFixed(0),
      'live clock (a happening per account), s': String(LIVE_SECONDS),
      'watch interval, s (±20 %)': String(WATCH_SECONDS),
      'events delivered/s (receiver, verified)': (window.length / RUN_SECONDS).toFixed(0),
      'events expected/s (one happening per account per tick)': (SESSIONS / LIVE_SECONDS).toFixed(0),
      'duplicates at the receiver': String(receiver.deliveries.length - receiver.ids().size),
      'signature failures': String(receiver.rejected.length),
      'latency happening → receiver, ms: p50, p99': `${pct(50).toFixed(0)}, ${pct(99).toFixed(0)}`,
      'watch lag, max of the last checks, s': lag ?? 'n/a',
      'RSS MB: before the sessions, peak while running, last': `${mb(rssBefore)}, ${mb(Math.max(...rss))}, ${mb(rss.at(-1) ?? 0)}`,
    };
  } finally {
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const figures = await benchEvents();
  for (const [name, value] of Object.entries(figures)) console.log(`${name}: ${value}`);
  process.exit(0);
}
