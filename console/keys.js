// API keys: the named keys of the teams and agents that share this service, with their scopes and
// limits; add one (the key is shown this once: only its hash is kept), revoke one after a question.
// The list is read when the view opens and after each change (keys change rarely, by operators).
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { api, when } from './api.js';

const SCOPES = [
  ['read', 'read: GET routes'],
  ['write', 'write: every other route'],
  ['operator', "operator: the console, keys, every caller's jobs, webhooks and pools, the audit"],
];

/** A comma- or space-separated list typed in a field, as the repeated form fields the API takes. */
const listOf = (text) =>
  String(text || '')
    .split(/[\s,]+/)
    .filter(Boolean);

function AddForm({ say, onAdded }) {
  const submit = async (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    const fields = [
      ['name', String(form.get('name')).trim()],
      ...form.getAll('scopes').map((scope) => ['scopes', scope]),
      ...listOf(form.get('accounts')).map((account) => ['accounts', account]),
      ...listOf(form.get('pools')).map((pool) => ['pools', pool]),
    ];
    try {
      const created = await api('POST', '/keys', fields);
      event.target.reset();
      onAdded(created);
      say(`Key ${created.name} added.`);
    } catch (error) {
      say('Adding the key failed', error);
    }
  };
  return html`<form class="card" onSubmit=${submit} aria-labelledby="add-key">
    <h2 id="add-key">Add a key</h2>
    <label for="key-name">Name</label>
    <input id="key-name" name="name" required pattern="[A-Za-z0-9._\\-]{1,64}" placeholder="reporting-agent" />
    <fieldset class="checks"><legend>Scopes (at least one)</legend>
      ${SCOPES.map(([scope, label]) => html`<label class="check"><input type="checkbox" name="scopes" value=${scope} /><span>${label}</span></label>`)}
    </fieldset>
    <label for="key-accounts">Only these accounts (usernames or pks, optional)</label>
    <input id="key-accounts" name="accounts" placeholder="demo, demo_2fa" />
    <label for="key-pools">Pools it may read through (optional)</label>
    <input id="key-pools" name="pools" placeholder="research" />
    <button type="submit">Add key</button>
  </form>`;
}

/** The new key, this once: the service keeps only its hash. */
function NewKey({ created, onDone }) {
  const done = useRef(null);
  useEffect(() => void (created && done.current?.focus()), [created]);
  if (!created) return null;
  return html`<div class="card secret" role="region" aria-label="New API key">
    <p>The key <strong>${created.name}</strong>, shown this once: store it now. It is kept only as its hash.</p>
    <p><code class="secret-value" data-new-key>${created.key}</code></p>
    <button type="button" ref=${done} onClick=${onDone}>I have kept it</button>
  </div>`;
}

function KeyRow({ entry, say, onChanged }) {
  const [confirming, setConfirming] = useState(false);
  const keep = useRef(null);
  useEffect(() => void (confirming && keep.current?.focus()), [confirming]);
  const revoke = async () => {
    try {
      await api('DELETE', '/keys', { name: entry.name });
      say(`Key ${entry.name} revoked.`);
      onChanged();
    } catch (error) {
      say(`Revoking ${entry.name} failed`, error);
    } finally {
      setConfirming(false);
    }
  };
  return html`<tr data-key=${entry.name}>
    <th scope="row" data-label="Name">${entry.name}</th>
    <td data-label="Scopes">${entry.scopes.join(', ')}</td>
    <td data-label="Accounts">${entry.accounts ? entry.accounts.join(', ') : 'any'}</td>
    <td data-label="Pools">${entry.pools ? entry.pools.join(', ') : 'its own'}</td>
    <td data-label="Added">${when(entry.created_at)}</td>
    <td>${
      confirming
        ? html`<div class="actions" role="group" aria-label=${'Revoke ' + entry.name + '?'}>
          <button type="button" class="danger" onClick=${revoke}>Yes, revoke ${entry.name}</button>
          <button type="button" class="quiet" ref=${keep} onClick=${() => setConfirming(false)}>Keep</button></div>`
        : html`<button type="button" class="danger" onClick=${() => setConfirming(true)} aria-label=${'Revoke ' + entry.name}>Revoke</button>`
    }</td>
  </tr>`;
}

export function KeysView({ say }) {
  const [keys, setKeys] = useState(null);
  const [created, setCreated] = useState(null);
  const load = () => api('GET', '/keys').then(setKeys, (error) => say('Reading the keys failed', error));
  useEffect(() => void load(), []);
  const added = (key) => {
    setCreated(key);
    void load();
  };
  return html`
    <p>${'Keys for the teams and agents that share this service. The one '}<code>SOCIALGATE_API_KEY</code>${' (named '}<code
      >default</code>${') is not listed: it has every scope.'}</p>
    <${NewKey} created=${created} onDone=${() => setCreated(null)} />
    <${AddForm} say=${say} onAdded=${added} />
    ${
      keys === null
        ? html`<p>Reading the keys…</p>`
        : keys.length === 0
          ? html`<p>No named key yet.</p>`
          : html`<div class="scroll" role="region" aria-label="Named API keys" tabindex="0"><table class="keys stack">
          <caption class="sr-only">Named API keys</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">Scopes</th><th scope="col">Accounts</th><th scope="col">Pools</th><th
            scope="col">Added</th><th scope="col"><span class="sr-only">Action</span></th></tr></thead>
          <tbody>${keys.map((entry) => html`<${KeyRow} key=${entry.name} entry=${entry} say=${say} onChanged=${load} />`)}</tbody>
        </table></div>`
    }`;
}
