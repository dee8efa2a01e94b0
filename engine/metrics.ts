// Prometheus metrics through prom-client's registry, in a registry of our own so that several apps
// (tests, or an embedding program) never share counters. Request and upstream series are
// pre-aggregated by our own small collectors: prom-client's labelled observe hashes its label
// object on every call, which on the hot path cost more than the rest of the metrics work; here a
// request costs two map lookups and a few additions, and prom-client formats the text at scrape.
import client from 'prom-client';
import type { BackgroundMetrics } from './types/plugins.js';

export interface Metrics extends BackgroundMetrics {
  readonly registry: client.Registry;
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  observeUpstream(method: string, outcome: string, seconds: number): void;
  /** Every request and upstream series as it stands (cumulative since start), for windows over time. */
  snapshot(): MetricsSnapshot;
}

/** One series' cumulative figures: its labels, count, sum of seconds and per-bucket counts. */
export interface SeriesFigures {
  readonly labels: Readonly<Record<string, string>>;
  readonly count: number;
  readonly sum: number;
  readonly buckets: readonly number[];
}
export interface MetricsSnapshot {
  readonly at: number;
  readonly requests: readonly SeriesFigures[];
  readonly upstream: readonly SeriesFigures[];
  readonly requestBounds: readonly number[];
  readonly upstreamBounds: readonly number[];
}

const UNMATCHED = 'unmatched ';
const REQUEST_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const UPSTREAM_BUCKETS = [0.001, 0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createMetrics(): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'socialgate_' });
  // A matched route's key names its method; unmatched requests are told apart by theirs.
  const requests = new SeriesFamily(REQUEST_BUCKETS, (key, status, method) => ({
    route: key.startsWith(UNMATCHED) ? 'unmatched' : key,
    method: method!,
    status: String(status),
  }));
  const upstream = new SeriesFamily(UPSTREAM_BUCKETS, (method, outcome) => ({ method, outcome: String(outcome) }));
  registry.registerMetric(requests.counter('socialgate_http_requests_total', 'HTTP requests by route, method and status') as never);
  registry.registerMetric(requests.histogram('socialgate_http_request_duration_seconds', 'HTTP request latency by route, method and status') as never);
  registry.registerMetric(upstream.counter('socialgate_upstream_calls_total', 'Upstream calls by method and outcome (ok or the exception name)') as never);
  registry.registerMetric(upstream.histogram('socialgate_upstream_call_duration_seconds', 'Upstream call latency by method and outcome') as never);
  return {
    registry,
    observeRequest: (route, method, status, seconds) => requests.series(route === 'unmatched' ? UNMATCHED + method : route, status, method).observe(seconds),
    observeUpstream: (method, outcome, seconds) => upstream.series(method, outcome).observe(seconds),
    snapshot: () => ({
      at: Date.now(),
      requests: requests.figures(),
      upstream: upstream.figures(),
      requestBounds: REQUEST_BUCKETS,
      upstreamBounds: UPSTREAM_BUCKETS,
    }),
    counter: (name, help, labels) => {
      const counter = new client.Counter({ name, help, labelNames: [...labels], registers: [registry] });
      return (values, by = 1) => counter.inc(values, by);
    },
    histogram: (name, help, labels, buckets) => {
      const histogram = new client.Histogram({ name, help, labelNames: [...labels], buckets: [...buckets], registers: [registry] });
      return (values, seconds) => histogram.observe(values, seconds);
    },
    gauge: (name, help, labels, collect) => {
      const gauge: client.Gauge = new client.Gauge({
        name,
        help,
        labelNames: [...labels],
        registers: [registry],
        async collect() {
          gauge.reset();
          for (const row of await collect()) gauge.set(row.labels, row.value);
        },
      });
    },
  };
}

class Series {
  count = 0;
  sum = 0;
  readonly buckets: number[];
  constructor(
    readonly labels: Readonly<Record<string, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = bounds.map(() => 0);
  }
  observe(seconds: number): void {
    this.count++;
    this.sum += seconds;
    const bounds = this.bounds;
    for (let index = 0; index < bounds.length; index++) {
      if (seconds <= bounds[index]) {
        this.buckets[index]++;
        return;
      }
    }
  }
}

/** Series keyed by two label values (the rest derive from them), each a counter and a histogram. */
class SeriesFamily {
  private readonly byKey = new Map<string, Map<string | number, Series>>();
  constructor(
    private readonly bounds: readonly number[],
    private readonly labelsOf: (first: string, second: string | number, third?: string) => Record<string, string>,
  ) {}

  /** The series for two keys (a third label, when there is one, follows from the first). */
  series(first: string, second: string | number, third?: string): Series {
    let inner = this.byKey.get(first);
    if (!inner) this.byKey.set(first, (inner = new Map()));
    let series = inner.get(second);
    if (!series) {
      const labels = this.labelsOf(first, second, third);
      inner.set(second, (series = new Series(labels, this.bounds)));
    }
    return series;
  }

  figures(): SeriesFigures[] {
    return this.all().map((s) => ({ labels: s.labels, count: s.count, sum: s.sum, buckets: [...s.buckets] }));
  }

  private all(): Series[] {
    return [...this.byKey.values()].flatMap((inner) => [...inner.values()]);
  }

  counter(name: string, help: string) {
    return {
      name,
      help,
      type: 'counter',
      get: async () => ({ name, help, type: 'counter', aggregator: 'sum', values: this.all().map((s) => ({ labels: s.labels, value: s.count })) }),
    };
  }

  histogram(name: string, help: string) {
    const get = async () => ({
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      values: this.all().flatMap((s) => {
        let cumulative = 0;
        const buckets = this.bounds.map((bound, index) => ({
          metricName: `${name}_bucket`,
          labels: { ...s.labels, le: bound },
          value: (cumulative += s.buckets[index]),
        }));
        return [
          ...buckets,
          { metricName: `${name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count },
          { metricName: `${name}_sum`, labels: s.labels, value: s.sum },
          { metricName: `${name}_count`, labels: s.labels, value: s.count },
        ];
      }),
    });
    return { name, help, type: 'histogram', get };
  }
}
