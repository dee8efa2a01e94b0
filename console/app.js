// The operator console: one page, a view per hash (#sessions, #login, #jobs, #webhooks, #health, #keys, #audit, #writes), fed by one
// server-sent event stream (/console/events). preact and htm, no build step of their own.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { api, ApiError, said } from './api.js';
import { SessionsView } from './sessions.js';
import { LoginView } from './login.js';
import { HealthView } from './health.js';
import { JobsView } from './jobs.js';
import { WebhooksView } from './webhooks.js';
import { KeysView } from './keys.js';
import { AuditView } from './audit.js';
import { WritesView } from './writes.js';

const VIEWS = [
  { id: 'sessions', title: 'Sessions', view: SessionsView },
  { id: 'login', title: 'Log in an account', view: LoginView },
  { id: 'jobs', title: 'Jobs', view: JobsView },
  { id: 'webhooks', title: 'Webhooks', view: WebhooksView },
  { id: 'writes', title: 'Scheduled writes', view: WritesView },
  { id: 'health', title: 'Health', view: HealthView },
  { id: 'keys', title: 'API keys', view: KeysView },
  { id: 'audit', title: 'Agent audit', view: AuditView },
];

const KEY_NOTE = ', or a named key with the operator scope. It is checked once and kept as a cookie this page cannot read.';

function currentView() {
  const id = location.hash.slice(1);
  return VIEWS.find((v) => v.id === id) || VIEWS[0];
}

/** The live state: the last `sessions` and `health` events, and whether the stream is up. */
function useLive(enabled) {
  const [live, setLive] = useState({ sessions: null, health: null, jobs: null, webhooks: null, connected: false });
  useEffect(() => {
    if (!enabled) return undefined;
    const source = new EventSource('/console/events');
    const take = (name) => (event) => setLive((state) => ({ ...state, [name]: JSON.parse(event.data), connected: true }));
    source.addEventListener('sessions', take('sessions'));
    source.addEventListener('health', take('health'));
    source.addEventListener('jobs', take('jobs'));
    source.addEventListener('webhooks', take('webhooks'));
    source.addEventListener('open', () => setLive((state) => ({ ...state, connected: true })));
    source.addEventListener('error', () => setLive((state) => ({ ...state, connected: false })));
    return () => source.close();
  }, [enabled]);
  return live;
}

function KeyForm({ onOpen }) {
  const [problem, setProblem] = useState('');
  const submit = async (event) => {
    event.preventDefault();
    const key = new FormData(event.target).get('key');
    try {
      await api('POST', '/console/key', { key });
      event.target.reset();
      onOpen();
    } catch (error) {
      setProblem(error.message);
    }
  };
  return html`<main id="main">
    <h1>socialgate console</h1>
    <form class="card narrow" onSubmit=${submit}>
      <h2>API key</h2>
      <p>${'This service asks for an API key: its '}<code>SOCIALGATE_API_KEY</code>${KEY_NOTE}</p>
      <label for="api-key">API key</label>
      <input id="api-key" name="key" type="password" autocomplete="current-password" required />
      ${problem && html`<p class="problem" role="alert">${problem}</p>`}
      <button type="submit">Open the console</button>
    </form>
  </main>`;
}

function App() {
  const [access, setAccess] = useState('checking'); // checking | key | open
  const [view, setView] = useState(currentView());
  const [message, setMessage] = useState(said(''));
  const say = (text, error) => setMessage(said(text, error));
  const live = useLive(access === 'open');

  const check = () =>
    api('GET', '/console/health').then(
      () => setAccess('open'),
      (error) => setAccess(error instanceof ApiError && error.status === 401 ? 'key' : 'open'),
    );
  useEffect(() => void check(), []);
  useEffect(() => {
    // A message is about the view it was said in: moving to another view clears it.
    const follow = () => {
      setView(currentView());
      setMessage(said(''));
    };
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  useEffect(() => void (document.title = `${view.title} · socialgate console`), [view]);

  if (access === 'checking') return html`<main id="main"><h1>socialgate console</h1><p>Loading…</p></main>`;
  if (access === 'key') return html`<${KeyForm} onOpen=${() => setAccess('open')} />`;
  const leave = async () => {
    await api('DELETE', '/console/key');
    setAccess('key');
  };
  const View = view.view;
  return html`
    <a class="skip" href="#main">Skip to content</a>
    <header>
      <p class="brand">socialgate console</p>
      <nav aria-label="Views">
        <ul>${VIEWS.map((v) => html`<li><a href=${'#' + v.id} aria-current=${v.id === view.id ? 'page' : undefined}>${v.title}</a></li>`)}</ul>
      </nav>
      <p class="link-state" data-connected=${String(live.connected)}>${live.connected ? 'Live' : 'Reconnecting…'}</p>
      <button class="quiet" type="button" onClick=${leave}>Close</button>
    </header>
    <main id="main" tabindex="-1">
      <h1>${view.title}</h1>
      <p class="status" role="status" aria-live="polite">${message.kind === 'ok' ? message.text : ''}</p>
      ${
        message.kind === 'error' &&
        html`<div class="banner-error" role="alert"><p>${message.text}</p>${message.hint && html`<p class="hint">${message.hint}</p>`}</div>`
      }
      <${View} live=${live} say=${say} />
    </main>`;
}

render(html`<${App} />`, document.getElementById('console'));
