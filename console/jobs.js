// Jobs: start one for a session or a pool, and watch every job's bar move (pushed by the event
// stream while a job is under way); cancel, and download what it collected.
import { useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { api, sessionDetail, sessionName } from './api.js';

const UNDER_WAY = new Set(['queued', 'running', 'paused']);

function seconds(n) {
  if (n == null) return '–';
  if (n < 90) return `${n} s`;
  if (n < 5400) return `${Math.round(n / 60)} min`;
  return `${Math.round(n / 3600)} h`;
}

function Bar({ job }) {
  const label = `Progress of job ${job.id}`;
  if (job.state === 'done' && !(job.limit > 0)) return html`<progress aria-label=${label} max="1" value="1">done</progress>`;
  if (job.limit > 0)
    return html`<progress aria-label=${label} max=${job.limit} value=${Math.min(job.items, job.limit)}>${job.items} of ${job.limit}</progress>`;
  return html`<progress aria-label=${label}>${job.items} items</progress>`; // no known total: indeterminate
}

/** Who runs the job: its pool, else its session by name (label or ref), as the sessions list names it. */
function ownerOf(job, sessions) {
  if (job.pool) return `pool ${job.pool}`;
  const session = job.session_ref && sessions.find((s) => s.ref === job.session_ref);
  if (session) return sessionName(session);
  const account = job.account ? job.account.username || job.account.pk : '–';
  return job.session_ref ? `${account} #${job.session_ref.slice(0, 6)}` : account;
}

function JobRow({ job, sessions, say }) {
  const owner = ownerOf(job, sessions);
  const cancel = async () => {
    try {
      await api('DELETE', '/jobs', { id: job.id });
      say(`Job ${job.id} cancelled.`);
    } catch (error) {
      say(`Cancelling job ${job.id} failed`, error);
    }
  };
  const results = (format) => `/jobs/results?${new URLSearchParams({ id: job.id, format })}`;
  return html`<li class="card job" data-job=${job.id} data-state=${job.state} data-session=${job.session_ref || ''}>
    <h2 class="job-title">${job.route} <small class="muted">for ${owner}</small></h2>
    <${Bar} job=${job} />
    <p class="job-figures"><span class=${'state state-' + job.state}>${job.state}</span>${' · '}${job.items}${
      job.limit ? ` of ${job.limit}` : ''
    } items · ${job.pages} ${job.pages === 1 ? 'page' : 'pages'} · ${job.rate}/s · ${
      UNDER_WAY.has(job.state) ? `${seconds(job.eta_seconds)} left` : `took ${seconds(job.elapsed_seconds)}`
    }</p>
    ${
      job.paused &&
      html`<p class="problem">Paused: ${job.paused.reason}${
        job.paused.until ? ` until ${new Date(job.paused.until).toLocaleTimeString()}` : ''
      }${job.paused.detail ? ` (${job.paused.detail})` : ''}</p>`
    }
    ${job.error && html`<p class="problem">Failed: ${job.error.exc_type}: ${job.error.detail}</p>`}
    <div class="row">
      ${UNDER_WAY.has(job.state) && html`<button type="button" class="danger" onClick=${cancel} aria-label=${'Cancel job ' + job.id}>Cancel</button>`}
      <span class="downloads">Download: <a href=${results('csv')} download>CSV</a> · <a href=${results(
        'ndjson',
      )} download>NDJSON</a> · <a href=${results('json')} download>JSON</a></span>
    </div>
  </li>`;
}

/** The sessions a job can run on, in an order that does not change as they are used: by account, then oldest first. */
function choices(sessions) {
  return sessions
    .filter((s) => s.state !== 'logged_out')
    .sort(
      (a, b) =>
        (a.account.username || a.account.pk).localeCompare(b.account.username || b.account.pk) ||
        a.created_at.localeCompare(b.created_at) ||
        a.ref.localeCompare(b.ref),
    );
}

function StartForm({ sessions, say }) {
  const [kinds, setKinds] = useState([]);
  const [problem, setProblem] = useState('');
  // The choice is the session's ref, never a position in the list: the list grows and changes under it.
  const [owner, setOwner] = useState('');
  useEffect(() => void api('GET', '/jobs/kinds').then(setKinds, (error) => setProblem(error.message)), []);
  const pools = [...new Set(sessions.flatMap((s) => s.pools || []))].sort();
  const options = [
    ...choices(sessions).map((s) => ({ value: 'ref:' + s.ref, text: `${sessionName(s)} · ${sessionDetail(s)}` })),
    ...pools.map((p) => ({ value: 'pool:' + p, text: `pool ${p}` })),
  ];
  const gone = owner !== '' && !options.some((o) => o.value === owner);
  const submit = async (event) => {
    event.preventDefault();
    const form = Object.fromEntries(new FormData(event.target));
    const [kind, value] = owner.split(':');
    const fields = { route: form.route, params: form.params || '{}', limit: form.limit || '0', [kind]: value };
    try {
      const job = await api('POST', '/console/jobs', fields);
      setProblem('');
      say(`Job ${job.id} started: ${job.route}.`);
    } catch (error) {
      setProblem(error.message + (error.body?.hint ? ` ${error.body.hint}` : ''));
    }
  };
  return html`<form class="card" onSubmit=${submit} aria-labelledby="start-title">
    <h2 id="start-title">Start a job</h2>
    <div class="grid">
      <div><label for="job-owner">For</label>
        <select id="job-owner" name="owner" required value=${gone ? '' : owner} onChange=${(event) => setOwner(event.currentTarget.value)}>
          <option value="" disabled selected=${owner === '' || gone}>${gone ? 'That session is gone: choose again' : 'Choose a session or a pool'}</option>
          ${options.map((o) => html`<option key=${o.value} value=${o.value} selected=${o.value === owner}>${o.text}</option>`)}
        </select></div>
      <div><label for="job-route">Route</label>
        <select id="job-route" name="route" required>${kinds.map((k) => html`<option value=${k.route}>${k.route}</option>`)}</select></div>
      <div><label for="job-params">Parameters (JSON)</label>
        <input id="job-params" name="params" defaultValue='{"user_id": "5000000001"}' /></div>
      <div><label for="job-limit">Most items (0: all)</label>
        <input id="job-limit" name="limit" type="number" min="0" defaultValue="0" /></div>
    </div>
    ${problem && html`<p class="problem" role="alert">${problem}</p>`}
    <button type="submit">Start</button>
  </form>`;
}

export function JobsView({ live, say }) {
  const sessions = live.sessions ? live.sessions.sessions : [];
  const jobs = live.jobs ? live.jobs.jobs : null;
  return html`
    <${StartForm} sessions=${sessions} say=${say} />
    ${
      jobs === null
        ? html`<p>Waiting for the job list…</p>`
        : jobs.length === 0
          ? html`<p>No jobs yet.</p>`
          : html`<ul class="jobs" aria-label="Jobs, newest first">${jobs.map(
              (job) => html`<${JobRow} key=${job.id} job=${job} sessions=${sessions} say=${say} />`,
            )}</ul>`
    }`;
}
