// The MCP audit: every tool call an agent made, newest first (which key, which session by its ref,
// which tool, the arguments with secrets removed, the outcome, whether a human confirmed it), as
// GET /console/audit answers it from the store every instance shares. Filter by session or tool.
import { useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { api, ago, when } from './api.js';

function Filters({ onFilter }) {
  const submit = (event) => {
    event.preventDefault();
    const form = new FormData(event.target);
    onFilter({ ref: String(form.get('ref')).trim(), tool: String(form.get('tool')).trim() });
  };
  return html`<form class="card row filters" onSubmit=${submit} aria-label="Filter the audit">
    <label for="audit-ref">Session ref</label><input id="audit-ref" name="ref" placeholder="all sessions" />
    <label for="audit-tool">Tool</label><input id="audit-tool" name="tool" placeholder="all tools" />
    <button type="submit">Show</button>
  </form>`;
}

function Entry({ entry }) {
  return html`<tr data-outcome=${entry.outcome}>
    <td data-label="When"><time datetime=${entry.at} title=${when(entry.at)}>${ago(entry.at)}</time></td>
    <td data-label="Key">${entry.key}</td>
    <td data-label="Session"><code>${entry.session || '–'}</code></td>
    <td data-label="Tool">${entry.tool}<br /><small class="muted">${entry.route || ''} · ${entry.action || ''}</small></td>
    <td data-label="Arguments"><code class="secret-value">${JSON.stringify(entry.arguments)}</code></td>
    <td data-label="Outcome"><span class=${entry.status < 400 ? 'outcome-delivered' : 'outcome-failed'}>${entry.outcome}</span> (${entry.status})</td>
    <td data-label="Confirmed">${entry.confirmation === 'elicited' ? 'by a human' : '–'}</td>
  </tr>`;
}

export function AuditView({ say }) {
  const [filter, setFilter] = useState({ ref: '', tool: '' });
  const [entries, setEntries] = useState(null);
  const load = () => {
    const query = { limit: '200', ...(filter.ref ? { ref: filter.ref } : {}), ...(filter.tool ? { tool: filter.tool } : {}) };
    return api('GET', '/console/audit', query).then(
      (body) => setEntries(body.entries),
      (error) => say('Reading the audit failed', error),
    );
  };
  useEffect(() => void load(), [filter]);
  return html`
    <p>MCP tool calls of every instance, newest first (the last 1000 are kept; the service log has them all).</p>
    <${Filters} onFilter=${setFilter} />
    <button type="button" class="quiet" onClick=${load}>Read again</button>
    ${
      entries === null
        ? html`<p>Reading the audit…</p>`
        : entries.length === 0
          ? html`<p>No tool call${filter.ref || filter.tool ? ' matches' : ' yet'}.</p>`
          : html`<div class="scroll" role="region" aria-label="Tool calls" tabindex="0"><table class="audit stack">
          <caption class="sr-only">MCP tool calls, newest first</caption>
          <thead><tr><th scope="col">When</th><th scope="col">Key</th><th scope="col">Session</th><th scope="col">Tool</th><th
            scope="col">Arguments</th><th scope="col">Outcome</th><th scope="col">Confirmed</th></tr></thead>
          <tbody>${entries.map((entry) => html`<${Entry} key=${entry.request_id + entry.tool} entry=${entry} />`)}</tbody>
        </table></div>`
    }`;
}
