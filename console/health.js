// Health: the upstream as it describes itself, and the last hour by route family from the
// service's own metrics (pushed every ten seconds by the event stream).
import { useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { api } from './api.js';

const pct = (rate) => `${(rate * 100).toFixed(1)} %`;
const ms = (latency) => (latency ? `${latency.mean.toFixed(1)} / ${latency.p95} ms` : '–');

function Upstream({ upstream, build }) {
  return html`<section class="card" aria-labelledby="upstream-title">
    <h2 id="upstream-title">Upstream</h2>
    <dl class="facts">
      <dt>Adapter</dt><dd>${upstream.adapter}</dd>
      <dt>Library</dt><dd>${upstream.library} ${upstream.version}${upstream.emulated ? ' (emulated by the sandbox)' : ''}</dd>
      <dt>Ready</dt><dd><span class=${upstream.ready ? 'good' : 'bad'}>${upstream.ready ? 'yes' : 'no'}</span>${
        upstream.detail ? ` (${upstream.detail})` : ''
      }</dd>
      ${
        build &&
        html`<dt>Service</dt><dd>${build.name} ${build.version} on Node ${build.node}${build.git_sha ? `, commit ${build.git_sha.slice(0, 10)}` : ''}</dd>`
      }
    </dl>
  </section>`;
}

export function HealthView({ live }) {
  const [build, setBuild] = useState(null);
  const [fetched, setFetched] = useState(null);
  // Fresh figures on opening the view; the stream's pushes replace them from then on.
  useEffect(() => {
    void api('GET', '/build').then(setBuild, () => undefined);
    void api('GET', '/console/health').then(setFetched, () => undefined);
  }, []);
  useEffect(() => setFetched(null), [live.health]);
  const health = fetched || live.health;
  if (!health) return html`<p>Waiting for the figures…</p>`;
  const t = health.totals;
  return html`
    <${Upstream} upstream=${health.upstream} build=${build} />
    <section class="card" aria-labelledby="traffic-title">
      <h2 id="traffic-title">Last ${Math.max(1, Math.round(health.window_seconds / 60))} min</h2>
      <p class="summary">${t.requests} requests (${t.requests_per_minute}/min), ${t.errors} answered with an error; ${
        t.upstream_calls
      } upstream calls, ${pct(t.upstream_error_rate)} failed.</p>
      <div class="scroll" role="region" aria-label="Figures by route family" tabindex="0">
        <table>
          <caption class="sr-only">Requests and upstream calls by route family</caption>
          <thead><tr>
            <th scope="col">Family</th><th scope="col">Requests</th><th scope="col">Per min</th><th scope="col">Errors</th>
            <th scope="col">Upstream calls</th><th scope="col">Upstream errors</th><th scope="col">Latency mean / p95</th>
          </tr></thead>
          <tbody>${health.families.map(
            (f) => html`<tr>
              <th scope="row">${f.family}</th><td>${f.requests}</td><td>${f.requests_per_minute}</td><td>${f.errors}</td><td>${f.upstream_calls}</td>
              <td>${f.upstream_calls ? pct(f.upstream_error_rate) : '–'}</td><td>${ms(f.upstream_latency_ms)}</td>
            </tr>`,
          )}</tbody>
        </table>
      </div>
    </section>`;
}
