// The console's figures: the last hour by route family out of the cumulative metrics (the
// baseline moves with the samples), latency mean and p95 from the histogram buckets, and the
// per-session use counts.
import t from 'tap';
import { createMetrics } from '../../engine/metrics.js';
import { RecentMetrics } from '../../engine/recent.js';
import { SessionUsage } from '../../engine/usage.js';
import type { Manifest } from '../../engine/types.js';

const MINUTE = 60_000;
const manifest = {
  routes: [
    { key: 'GET /user', area: 'user', upstreamMethods: ['user_info_by_username'] },
    { key: 'GET /media', area: 'media', upstreamMethods: ['media_info', 'user_info_by_username'] },
  ],
} as unknown as Manifest;

t.test('the hour is counted from the sample taken an hour ago, not from the start', async (t) => {
  const metrics = createMetrics();
  const recent = new RecentMetrics(metrics, manifest);
  t.teardown(() => recent.close());
  const start = Date.now();
  for (let i = 0; i < 3; i++) metrics.observeRequest('GET /user', 'GET', 200, 0.01);
  recent.sample(start + 30 * MINUTE);
  metrics.observeRequest('GET /user', 'GET', 200, 0.01);
  metrics.observeRequest('GET /user', 'GET', 404, 0.01);
  recent.sample(start + 61 * MINUTE);
  t.match(recent.summary(start + 61 * MINUTE).families, [{ family: 'user', requests: 5, errors: 1 }], 'an hour after start: everything since start');
  recent.sample(start + 95 * MINUTE);
  const later = recent.summary(start + 95 * MINUTE);
  t.match(
    later.families,
    [{ family: 'user', requests: 2, errors: 1, requests_per_minute: 0.031 }],
    'later: only what came after the sample of an hour ago (the 30-minute one)',
  );
  t.equal(later.window_seconds, 3600);
});

t.test('families from the manifest; upstream latency mean and p95 from the buckets', async (t) => {
  const metrics = createMetrics();
  const recent = new RecentMetrics(metrics, manifest);
  t.teardown(() => recent.close());
  for (let i = 0; i < 19; i++) metrics.observeUpstream('user_info_by_username', 'ok', 0.002);
  metrics.observeUpstream('user_info_by_username', 'UserNotFound', 0.4);
  metrics.observeUpstream('media_info', 'ok', 0.02);
  metrics.observeRequest('GET /console/assets', 'GET', 200, 0.001);
  metrics.observeRequest('unmatched', 'GET', 404, 0.001);
  const { families, totals } = recent.summary();
  const user = families.find((f) => f.family === 'user')!;
  t.match(user, { upstream_calls: 20, upstream_errors: 1, upstream_error_rate: 0.05 }, 'a method several areas use counts for the first');
  t.same(user.upstream_latency_ms, { mean: 21.9, p95: 5 }, 'mean 21.9 ms; 19 of 20 calls within the 5 ms bucket');
  t.match(
    families.find((f) => f.family === 'media'),
    { upstream_calls: 1, upstream_latency_ms: { p95: 25 } },
  );
  t.ok(
    families.some((f) => f.family === 'static files') && families.some((f) => f.family === 'unmatched'),
    'static files and unmatched requests are their own rows',
  );
  t.match(totals, { requests: 2, upstream_calls: 21 });
});

t.test('use per session and family', async (t) => {
  const usage = new SessionUsage();
  usage.count('a', 'user', false);
  usage.count('a', 'user', true);
  usage.count('a', 'media', false);
  const version = usage.version;
  t.same(usage.of('a'), { user: { requests: 2, errors: 1 }, media: { requests: 1, errors: 0 } });
  t.same(usage.of('b'), {}, 'a session never counted has none');
  usage.forget('a');
  t.same(usage.of('a'), {}, 'a revoked session loses its counts');
  t.ok(usage.version > version, 'and a reader sees the change');
});
