// The service's own metrics over the last hour, by route family, for the operator console. The
// counters are cumulative since start; a sample of them is kept each minute (61 at most), and the
// hour is the difference between now and the sample taken an hour ago (or the start, when the
// process is younger). Nothing is added to the request path: the samples copy the series the
// metrics already keep.
import type { Manifest } from './types.js';
import type { Metrics, MetricsSnapshot, SeriesFigures } from './metrics.js';

export interface FamilyFigures {
  readonly family: string;
  readonly requests: number;
  /** Answers with status 400 or above (the client's and the service's). */
  readonly errors: number;
  readonly requests_per_minute: number;
  readonly upstream_calls: number;
  /** Upstream calls that raised (any exception: throttling, challenge, not found...). */
  readonly upstream_errors: number;
  readonly upstream_error_rate: number;
  /** Mean and 95th percentile (the histogram bucket it falls in) of upstream calls, in ms; null without calls. */
  readonly upstream_latency_ms: { readonly mean: number; readonly p95: number } | null;
}

export interface RecentFigures {
  readonly window_seconds: number;
  readonly families: readonly FamilyFigures[];
  readonly totals: Omit<FamilyFigures, 'family'>;
}

interface Sum {
  requests: number;
  errors: number;
  calls: number;
  failed: number;
  seconds: number;
  buckets: number[];
}

const MINUTE = 60_000;

export class RecentMetrics {
  private readonly samples: MetricsSnapshot[];
  private readonly timer: NodeJS.Timeout;
  private readonly familyOfRoute: ReadonlyMap<string, string>;
  private readonly familyOfMethod: ReadonlyMap<string, string>;

  constructor(
    private readonly metrics: Metrics,
    manifest: Manifest,
    private readonly windowMs = 60 * MINUTE,
    everyMs = MINUTE,
  ) {
    this.familyOfRoute = new Map(manifest.routes.map((route) => [route.key, route.area]));
    // A method several areas reach counts for the first area naming it (the manifest's file order).
    const methods = new Map<string, string>();
    for (const route of manifest.routes) for (const method of route.upstreamMethods) if (!methods.has(method)) methods.set(method, route.area);
    this.familyOfMethod = methods;
    this.samples = [metrics.snapshot()];
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref(); // a sampler never keeps the process alive
  }

  /** Keeps a sample now, and of the older ones only what the window still needs. */
  sample(now = Date.now()): void {
    this.samples.push({ ...this.metrics.snapshot(), at: now });
    while (this.samples.length > 1 && this.samples[1].at <= now - this.windowMs) this.samples.shift();
  }

  summary(now = Date.now()): RecentFigures {
    const base = this.samples[0];
    const current = this.metrics.snapshot();
    const sums = new Map<string, Sum>();
    const sumOf = (family: string) => sums.get(family) ?? sums.set(family, emptySum(current.upstreamBounds.length)).get(family)!;
    for (const series of since(current.requests, base.requests)) {
      // Not a manifest route: the pages' static files, or no route at all.
      const sum = sumOf(this.familyOfRoute.get(series.labels.route) ?? (series.labels.route === 'unmatched' ? 'unmatched' : 'static files'));
      sum.requests += series.count;
      if (Number(series.labels.status) >= 400) sum.errors += series.count;
    }
    for (const series of since(current.upstream, base.upstream)) {
      const sum = sumOf(this.familyOfMethod.get(series.labels.method) ?? 'other');
      sum.calls += series.count;
      if (series.labels.outcome !== 'ok') sum.failed += series.count;
      sum.seconds += series.sum;
      for (const [i, n] of series.buckets.entries()) sum.buckets[i] += n;
    }
    const minutes = Math.max(1, (now - base.at) / MINUTE);
    const families = [...sums]
      .map(([family, sum]) => ({ family, ...figures(sum, minutes, current.upstreamBounds) }))
      .sort((a, b) => b.requests - a.requests || a.family.localeCompare(b.family));
    const total = [...sums.values()].reduce(addSum, emptySum(current.upstreamBounds.length));
    return { window_seconds: Math.round(Math.min(this.windowMs, now - base.at) / 1000), families, totals: figures(total, minutes, current.upstreamBounds) };
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** Each series' growth since the baseline (a series the baseline lacks grew from zero). */
function since(current: readonly SeriesFigures[], base: readonly SeriesFigures[]): SeriesFigures[] {
  const before = new Map(base.map((series) => [labelKey(series), series]));
  return current
    .map((series) => {
      const old = before.get(labelKey(series));
      if (!old) return series;
      return {
        labels: series.labels,
        count: series.count - old.count,
        sum: series.sum - old.sum,
        buckets: series.buckets.map((n, i) => n - (old.buckets[i] ?? 0)),
      };
    })
    .filter((series) => series.count > 0);
}

const labelKey = (series: SeriesFigures) => JSON.stringify(series.labels);

const emptySum = (buckets: number): Sum => ({ requests: 0, errors: 0, calls: 0, failed: 0, seconds: 0, buckets: new Array<number>(buckets).fill(0) });

function addSum(a: Sum, b: Sum): Sum {
  return {
    requests: a.requests + b.requests,
    errors: a.errors + b.errors,
    calls: a.calls + b.calls,
    failed: a.failed + b.failed,
    seconds: a.seconds + b.seconds,
    buckets: a.buckets.map((n, i) => n + b.buckets[i]),
  };
}

function figures(sum: Sum, minutes: number, bounds: readonly number[]): Omit<FamilyFigures, 'family'> {
  return {
    requests: sum.requests,
    errors: sum.errors,
    requests_per_minute: round(sum.requests / minutes),
    upstream_calls: sum.calls,
    upstream_errors: sum.failed,
    upstream_error_rate: sum.calls ? round(sum.failed / sum.calls) : 0,
    upstream_latency_ms: sum.calls ? { mean: round((sum.seconds / sum.calls) * 1000), p95: percentileMs(sum.buckets, sum.calls, bounds, 0.95) } : null,
  };
}

/** The upper bound of the bucket the percentile falls in; past the last bound, that bound. */
function percentileMs(buckets: readonly number[], count: number, bounds: readonly number[], q: number): number {
  let seen = 0;
  for (let i = 0; i < bounds.length; i++) {
    seen += buckets[i];
    if (seen >= q * count) return bounds[i] * 1000;
  }
  return bounds[bounds.length - 1] * 1000;
}

const round = (n: number) => Math.round(n * 1000) / 1000;
