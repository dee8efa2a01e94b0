// Lanes serialise calls per key and run different keys concurrently; metrics come out as
// Prometheus text with counters and cumulative histograms per route and per upstream method.
import t from 'tap';
import { Lanes } from '../../engine/lane.js';
import { createMetrics } from '../../engine/metrics.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('one key runs one task at a time, in order; other keys run alongside', async (t) => {
  const lanes = new Lanes();
  const log: string[] = [];
  let running = 0;
  let most = 0;
  const task =
    (name: string, ms: number, fail = false) =>
    async () => {
      running++;
      most = Math.max(most, running);
      log.push(`start ${name}`);
      await tick(ms);
      log.push(`end ${name}`);
      running--;
      if (fail) throw new Error(name);
      return name;
    };
  const a = [lanes.run('s1', task('a1', 20)), lanes.run('s1', task('a2', 5, true)).catch((e: Error) => `caught ${e.message}`), lanes.run('s1', task('a3', 1))];
  const b = lanes.run('s2', task('b1', 5));
  t.same(await Promise.all([...a, b]), ['a1', 'caught a2', 'a3', 'b1']);
  const s1 = log.filter((line) => line.endsWith('a1') || line.endsWith('a2') || line.endsWith('a3'));
  t.same(s1, ['start a1', 'end a1', 'start a2', 'end a2', 'start a3', 'end a3'], 'strictly one after another');
  t.ok(log.indexOf('start b1') < log.indexOf('end a1'), 'another session does not wait');
  t.equal(most, 2);
  t.equal(lanes.busy, 0, 'idle lanes are dropped');
});

t.test('a synchronous throw frees the lane', async (t) => {
  const lanes = new Lanes();
  await t.rejects(
    lanes.run('k', () => {
      throw new Error('sync');
    }),
    /sync/,
  );
  t.equal(await lanes.run('k', async () => 'next'), 'next');
  t.equal(lanes.busy, 0);
});

t.test('metrics text', async (t) => {
  const metrics = createMetrics();
  metrics.observeRequest('GET /user', 'GET', 200, 0.002);
  metrics.observeRequest('GET /user', 'GET', 200, 0.3);
  metrics.observeRequest('GET /user', 'GET', 404, 0.0005);
  metrics.observeUpstream('user_info', 'ok', 0.004);
  metrics.observeUpstream('user_info', 'UserNotFound', 0.002);
  const text = await metrics.registry.metrics();
  t.match(text, /# TYPE socialgate_http_requests_total counter/);
  t.match(text, /socialgate_http_requests_total\{route="GET \/user",method="GET",status="200"\} 2/);
  t.match(text, /socialgate_http_requests_total\{route="GET \/user",method="GET",status="404"\} 1/);
  t.match(text, /# TYPE socialgate_http_request_duration_seconds histogram/);
  t.match(text, /socialgate_http_request_duration_seconds_bucket\{route="GET \/user",method="GET",status="200",le="0.005"\} 1/);
  t.match(text, /socialgate_http_request_duration_seconds_bucket\{route="GET \/user",method="GET",status="200",le="0.5"\} 2/);
  t.match(text, /socialgate_http_request_duration_seconds_bucket\{route="GET \/user",method="GET",status="200",le="\+Inf"\} 2/);
  t.match(text, /socialgate_http_request_duration_seconds_sum\{route="GET \/user",method="GET",status="200"\} 0.302/);
  t.match(text, /socialgate_http_request_duration_seconds_count\{route="GET \/user",method="GET",status="200"\} 2/);
  t.match(text, /socialgate_upstream_calls_total\{method="user_info",outcome="UserNotFound"\} 1/);
  t.match(text, /socialgate_upstream_call_duration_seconds_count\{method="user_info",outcome="ok"\} 1/);
  t.match(text, /socialgate_process_cpu_user_seconds_total/, 'process metrics too');
  for (const line of text.split('\n').filter((l) => l && !l.startsWith('#'))) {
    t.match(line, /^[a-z_:][a-z0-9_:]*(\{[^}]*\})? [-+0-9.eE]+|NaN|\+Inf$/i, `well-formed: ${line.slice(0, 60)}`);
  }
});
