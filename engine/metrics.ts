// Prometheus metrics from prom-client, in a registry of our own so that several apps (tests, or
// an embedding program) never share counters. Labels are route templates, never raw URLs, so the
// series stay bounded.
import client from 'prom-client';

export interface Metrics {
  readonly registry: client.Registry;
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  observeUpstream(method: string, outcome: string, seconds: number): void;
}

export function createMetrics(): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: 'socialgate_' });
  const requests = new client.Counter({ name: 'socialgate_http_requests_total', help: 'HTTP requests by route, method and status', labelNames: ['route', 'method', 'status'], registers: [registry] });
  const latency = new client.Histogram({ name: 'socialgate_http_request_duration_seconds', help: 'HTTP request latency by route, method and status', labelNames: ['route', 'method', 'status'], buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry] });
  const calls = new client.Counter({ name: 'socialgate_upstream_calls_total', help: 'Upstream calls by method and outcome (ok or the exception name)', labelNames: ['method', 'outcome'], registers: [registry] });
  const callLatency = new client.Histogram({ name: 'socialgate_upstream_call_duration_seconds', help: 'Upstream call latency by method and outcome', labelNames: ['method', 'outcome'], buckets: [0.001, 0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60], registers: [registry] });
  return {
    registry,
    observeRequest(route, method, status, seconds) {
      const labels = { route, method, status: String(status) };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
    observeUpstream(method, outcome, seconds) {
      calls.inc({ method, outcome });
      callLatency.observe({ method, outcome }, seconds);
    },
  };
}
