// Webhooks: add an endpoint (its secret is shown once), see each endpoint's newest deliveries with
// their status and attempt, replay one, rotate the secret, turn a disabled endpoint back on, remove
// one. The list is pushed by the event stream whenever a delivery or a change happens.
import { useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { api, ago, when } from './api.js';

const KINDS = ['direct.message.created', 'direct.request.created', 'notification.created', 'session.state.changed', 'job.*', 'write.*'];

function AddForm({ say, onSecret, onAdded }) {
  const submit = async (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    const fields = [['url', form.get('url')], ...form.getAll('kinds').map((kind) => ['kinds', kind])];
    try {
      const created = await api('POST', '/webhooks', fields);
      event.target.reset();
      onSecret({ id: created.id, secret: created.secret });
      onAdded(created);
      say(`Endpoint ${created.id} added.`);
    } catch (error) {
      say(`Adding the endpoint failed`, error);
    }
  };
  return html`<form class="card" onSubmit=${submit} aria-labelledby="add-webhook">
    <h2 id="add-webhook">Add an endpoint</h2>
    <label for="webhook-url">URL</label>
    <input id="webhook-url" name="url" type="url" required placeholder="https://hooks.example.com/socialgate" />
    <fieldset class="checks"><legend>Event types (none: all)</legend>
      ${KINDS.map((kind) => html`<label class="check"><input type="checkbox" name="kinds" value=${kind} /><span>${kind}</span></label>`)}
    </fieldset>
    <button type="submit">Add endpoint</button>
  </form>`;
}

function Secret({ shown, onDone }) {
  if (!shown) return null;
  return html`<div class="card secret" role="region" aria-label="New signing secret">
    <p>The signing secret of <strong>${shown.id}</strong>, shown this once: keep it to verify <code>webhook-signature</code>.</p>
    <p><code class="secret-value">${shown.secret}</code></p>
    <button type="button" onClick=${onDone}>I have kept it</button>
  </div>`;
}

function Deliveries({ endpoint, say }) {
  if (!endpoint.deliveries.length) return html`<p class="muted">No delivery yet.</p>`;
  const replay = (delivery) => async () => {
    try {
      await api('POST', '/webhooks/replay', { id: endpoint.id, event_id: delivery.event_id });
      say(`Event ${delivery.event_id} queued again for ${endpoint.id}.`);
    } catch (error) {
      say(`Replay failed`, error);
    }
  };
  return html`<div class="scroll" role="region" aria-label=${'Deliveries to ' + endpoint.url} tabindex="0">
    <table class="deliveries stack">
      <caption class="sr-only">Newest deliveries to ${endpoint.url}</caption>
      <thead><tr>
        <th scope="col">When</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Status</th><th scope="col">Outcome</th>
        <th scope="col">Latency</th><th scope="col"><span class="sr-only">Action</span></th>
      </tr></thead>
      <tbody>${endpoint.deliveries.map(
        (d) => html`<tr key=${d.seq} data-outcome=${d.outcome}>
        <td data-label="When"><time datetime=${d.at} title=${when(d.at)}>${ago(d.at)}</time></td>
        <td data-label="Event">${d.type}<br /><small class="muted">${d.event_id}</small></td>
        <td data-label="Attempt">${d.attempt}${d.replay ? ' (replay)' : ''}</td>
        <td data-label="Status">${d.status || 'no answer'}</td>
        <td data-label="Outcome"><span class=${'outcome outcome-' + d.outcome}>${d.outcome}</span>${d.error ? html`<br /><small>${d.error}</small>` : ''}</td>
        <td data-label="Latency">${d.latency_ms} ms</td>
        <td><button type="button" class="quiet" onClick=${replay(d)} aria-label=${'Replay ' + d.event_id}>Replay</button></td>
      </tr>`,
      )}</tbody>
    </table>
  </div>`;
}

function Endpoint({ endpoint, say, onSecret }) {
  const act = (label, method, path) => async () => {
    try {
      const answer = await api(method, path, { id: endpoint.id });
      if (answer?.secret) onSecret({ id: endpoint.id, secret: answer.secret });
      say(`${label}: ${endpoint.id} done.`);
    } catch (error) {
      say(`${label}: ${endpoint.id} failed`, error);
    }
  };
  return html`<li class="card endpoint" data-endpoint=${endpoint.id}>
    <h2 class="endpoint-url">${endpoint.url}</h2>
    <p class="muted">${endpoint.id} · ${endpoint.kinds.length ? endpoint.kinds.join(', ') : 'all events'} · ${
      endpoint.sessions.length ? `${endpoint.sessions.length} session(s)` : 'all sessions'
    } · ${endpoint.attempts} ${endpoint.attempts === 1 ? 'attempt' : 'attempts'}</p>
    ${endpoint.disabled && html`<p class="problem">Disabled: ${endpoint.disabled}</p>`}
    ${endpoint.rotating_until && html`<p class="muted">The previous secret signs too until ${when(endpoint.rotating_until)}.</p>`}
    <div class="actions">
      ${endpoint.disabled && html`<button type="button" onClick=${act('Enable', 'POST', '/webhooks/enable')}>Enable</button>`}
      <button type="button" onClick=${act('Rotate secret', 'POST', '/webhooks/rotate')} aria-label=${'Rotate secret of ' + endpoint.url}>Rotate secret</button>
      <button type="button" class="danger" onClick=${act('Remove', 'DELETE', '/webhooks')} aria-label=${'Remove ' + endpoint.url}>Remove</button>
    </div>
    <${Deliveries} endpoint=${endpoint} say=${say} />
  </li>`;
}

export function WebhooksView({ live, say }) {
  const [secret, setSecret] = useState(null);
  // An endpoint just added shows at once, until the stream's next list (a second later) has it too.
  const [added, setAdded] = useState([]);
  const list = live.webhooks;
  const listed = list ? list.endpoints : [];
  const pending = added
    .filter((a) => !listed.some((e) => e.id === a.id))
    .map((a) => ({ kinds: [], sessions: [], attempts: 0, deliveries: [], ...a, secret: undefined }));
  const endpoints = [...listed, ...pending];
  return html`
    <${Secret} shown=${secret} onDone=${() => setSecret(null)} />
    <${AddForm} say=${say} onSecret=${setSecret} onAdded=${(created) => setAdded((all) => [...all, created])} />
    ${
      !list && !pending.length
        ? html`<p>Waiting for the endpoints…</p>`
        : endpoints.length === 0
          ? html`<p>No endpoint yet. Events are also on <code>GET /events</code> for a session.</p>`
          : html`<ul class="endpoints">${endpoints.map((e) => html`<${Endpoint} key=${e.id} endpoint=${e} say=${say} onSecret=${setSecret} />`)}</ul>`
    }`;
}
