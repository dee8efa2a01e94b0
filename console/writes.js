// Scheduled writes: every scheduled and deferred write (the console's key sees every owner's, as
// GET /writes/scheduled answers the operator), refreshed every few seconds; cancel one that waits.
import { useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { api, when } from './api.js';

const REFRESH_MS = 5000;

function WriteRow({ write, say, refresh }) {
  const cancel = async () => {
    try {
      await api('DELETE', '/writes/scheduled', { id: write.id });
      say(`Scheduled write ${write.id} cancelled.`);
      refresh();
    } catch (error) {
      say(`Cancelling scheduled write ${write.id} failed`, error);
    }
  };
  const who = write.account ? write.account.username || write.account.pk : '–';
  return html`<li class="card write" data-write=${write.id} data-state=${write.state}>
    <h2>${write.route} <small class="muted">for ${who} · ${write.kind}</small></h2>
    <p><span class=${'state state-' + write.state}>${write.state}</span> · runs ${when(write.run_at)}${write.reason ? ` (waits: ${write.reason})` : ''}${
      write.finished_at ? ` · finished ${when(write.finished_at)}` : ''
    }</p>
    ${write.error && html`<p class="problem">Failed: ${write.error.exc_type}: ${write.error.detail}</p>`}
    ${
      write.state === 'scheduled' &&
      html`<button type="button" class="danger" onClick=${cancel}
      aria-label=${'Cancel scheduled write ' + write.id}>Cancel</button>`
    }
  </li>`;
}

export function WritesView({ say }) {
  const [writes, setWrites] = useState(null);
  const [problem, setProblem] = useState('');
  const refresh = () =>
    api('GET', '/writes/scheduled').then(
      (list) => (setWrites(list), setProblem('')),
      (error) => setProblem(error.message),
    );
  useEffect(() => {
    refresh();
    const timer = setInterval(refresh, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);
  if (problem) return html`<p class="problem" role="alert">${problem}</p>`;
  if (writes === null) return html`<p>Waiting for the scheduled writes…</p>`;
  if (writes.length === 0) return html`<p>No scheduled or deferred writes.</p>`;
  return html`<ul class="writes" aria-label="Scheduled writes, newest first">${writes.map(
    (write) => html`<${WriteRow} key=${write.id} write=${write} say=${say} refresh=${refresh} />`,
  )}</ul>`;
}
