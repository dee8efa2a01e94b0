// Every session: account and a name that tells it apart (label, else its ref's first characters), state,
// last use, requests and errors by route family, proxy host; and what an operator does to one (name it,
// relogin, clear a throttle, revoke after a confirmation). The rows hold still while the pointer or the
// focus is in the table, so a live update never moves what the operator is pointing at.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { ago, api, sessionName, when } from './api.js';

const STATE_LABEL = { active: 'Active', challenge: 'Challenge', throttled: 'Throttled', logged_out: 'Logged out' };

function Usage({ usage }) {
  const families = Object.entries(usage || {});
  if (!families.length) return html`<span class="muted">none yet</span>`;
  return html`<ul class="usage">${families.map(
    ([family, t]) => html`<li><span>${family}</span> ${t.requests}${t.errors ? html` <span class="bad">(${t.errors} failed)</span>` : ''}</li>`,
  )}</ul>`;
}

function State({ session }) {
  const until = session.throttled_until;
  const frozen = session.frozen_classes || [];
  return html`<span class=${'state state-' + session.state}>${STATE_LABEL[session.state] || session.state}</span>${
    until ? html`<br /><small>until ${when(until)}</small>` : ''
  }
    ${frozen.length > 0 && html`<br /><span class="state state-frozen">Frozen: ${frozen.join(', ')}</span>`}
    <${Budgets} budgets=${session.budgets} />`;
}

/** The account-safety policy: classes used today against the day's limit (the rest are untouched), and the window. */
function Budgets({ budgets }) {
  if (!budgets) return '';
  const used = Object.entries(budgets.today).filter(([, text]) => !text.startsWith('0/'));
  return html`<br /><small class="budgets">Today: ${
    used.length ? used.map(([cls, text]) => `${cls} ${text}`).join(' · ') : 'no budgeted calls'
  }${budgets.window ? ` · window ${budgets.window}` : ''}</small>`;
}

function Label({ session, say }) {
  const name = sessionName(session);
  const save = async (event) => {
    event.preventDefault();
    const label = new FormData(event.target).get('label').trim();
    try {
      await api('POST', '/console/sessions/label', { ref: session.ref, label });
      say(label ? `${name} is now named “${label}”.` : `The label of ${name} is removed.`);
    } catch (error) {
      say(`Naming ${name} failed`, error);
    }
  };
  return html`<form class="add-pool" onSubmit=${save}>
    <input name="label" aria-label=${'Label of ' + name} placeholder="label" maxlength="64" size="8" defaultValue=${session.label || ''} />
    <button type="submit" aria-label=${'Name ' + name}>Name</button>
  </form>`;
}

function Pools({ session, say }) {
  const name = sessionName(session);
  const add = async (event) => {
    event.preventDefault();
    const pool = new FormData(event.target).get('pool').trim();
    try {
      await api('POST', '/console/pools/members', { ref: session.ref, name: pool });
      event.target.reset();
      say(`${name} added to pool ${pool}.`);
    } catch (error) {
      say(`Adding ${name} to pool ${pool} failed`, error);
    }
  };
  const remove = (pool) => async () => {
    try {
      await api('DELETE', '/console/pools/members', { ref: session.ref, name: pool });
      say(`${name} removed from pool ${pool}.`);
    } catch (error) {
      say(`Removing ${name} from pool ${pool} failed`, error);
    }
  };
  return html`<ul class="pools">${session.pools.map(
    (pool) => html`<li>${pool} <button type="button" class="chip" onClick=${remove(pool)}
      aria-label=${`Remove ${name} from pool ${pool}`}>×</button></li>`,
  )}</ul>
    <form class="add-pool" onSubmit=${add}>
      <input name="pool" aria-label=${'Pool to add ' + name + ' to'} placeholder="pool" pattern="[A-Za-z0-9._-]{1,64}" required size="8" />
      <button type="submit" aria-label=${'Add ' + name + ' to the pool'}>Add</button>
    </form>`;
}

function Watch({ session, say }) {
  const name = sessionName(session);
  const watch = session.watch;
  const toggle = async () => {
    try {
      await api('POST', '/console/sessions/watch', { ref: session.ref, watching: String(!watch) });
      say(`${watch ? 'Stopped watching' : 'Watching'} ${name}.`);
    } catch (error) {
      say(`${watch ? 'Stopping' : 'Starting'} the watch of ${name} failed`, error);
    }
  };
  return html`${
    watch
      ? html`<span class="watch">${watch.paused ? `paused (${watch.paused})` : watch.source}, every ${watch.interval_seconds} s<br /><small
          class="muted">${watch.emitted} events${watch.last_check_at ? ` · checked ${ago(watch.last_check_at)}` : ''}</small></span>`
      : html`<span class="muted">not watched</span>`
  }
    <br /><button type="button" class="quiet" onClick=${toggle}
      aria-label=${(watch ? 'Stop watching ' : 'Watch ') + name}>${watch ? 'Stop' : 'Watch'}</button>`;
}

function Actions({ session, say }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const keep = useRef(null);
  // The button pressed is gone: the keyboard lands on the safe choice of the question instead.
  useEffect(() => void (confirming && keep.current?.focus()), [confirming]);
  const name = sessionName(session);
  const act = (label, method, path) => async () => {
    setBusy(true);
    try {
      await api(method, path, { ref: session.ref });
      say(`${label}: ${name} done.`);
    } catch (error) {
      say(`${label}: ${name} failed`, error);
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  if (confirming) {
    return html`<div class="actions" role="group" aria-label=${'Revoke ' + name + '?'}>
      <button type="button" class="danger" onClick=${act('Revoke', 'DELETE', '/console/sessions')} disabled=${busy}>Yes, revoke ${name}</button>
      <button type="button" class="quiet" ref=${keep} onClick=${() => setConfirming(false)}>Keep</button>
    </div>`;
  }
  return html`<div class="actions">
    <button type="button" onClick=${act('Relogin', 'POST', '/console/sessions/relogin')} disabled=${busy} aria-label=${'Relogin ' + name}>Relogin</button>
    ${
      session.throttled_until &&
      html`<button type="button" onClick=${act('Clear throttle', 'DELETE', '/console/sessions/throttle')} disabled=${busy}
      aria-label=${'Clear throttle of ' + name}>Clear throttle</button>`
    }
    <button type="button" onClick=${act('Upgrade app profile', 'POST', '/console/sessions/upgrade')} disabled=${busy}
      aria-label=${'Upgrade app profile of ' + name}
      title="Rebuild the client with the library's current app profile, keeping the device and the session ID">Upgrade app profile</button>
    <button type="button" class="danger" onClick=${() => setConfirming(true)} disabled=${busy} aria-label=${'Revoke ' + name}>Revoke</button>
  </div>`;
}

/**
 * The rows' order: the service's (most recently used first) while the operator is elsewhere; while the
 * pointer or the focus is in the table, rows keep their places (new sessions at the end) until both leave.
 */
function useSteadyRows(sessions) {
  const [pointer, setPointer] = useState(false);
  const [focus, setFocus] = useState(false);
  const order = useRef([]);
  const refs = sessions.map((s) => s.ref);
  if (!pointer && !focus) order.current = refs;
  else {
    const live = new Set(refs);
    const kept = order.current.filter((ref) => live.has(ref));
    const known = new Set(kept);
    order.current = [...kept, ...refs.filter((ref) => !known.has(ref))];
  }
  const byRef = new Map(sessions.map((s) => [s.ref, s]));
  const region = {
    onMouseEnter: () => setPointer(true),
    onMouseLeave: () => setPointer(false),
    onFocusIn: () => setFocus(true),
    onFocusOut: (event) => setFocus(event.currentTarget.contains(event.relatedTarget)),
  };
  return { rows: order.current.map((ref) => byRef.get(ref)), held: pointer || focus, region };
}

export function SessionsView({ live, say }) {
  const list = live.sessions;
  const sessions = list ? list.sessions : [];
  const { rows, held, region } = useSteadyRows(sessions);
  if (!list) return html`<p>Waiting for the session list…</p>`;
  const counts = {};
  for (const s of sessions) counts[s.state] = (counts[s.state] || 0) + 1;
  return html`
    <p class="summary" data-count=${sessions.length}>${sessions.length} sessions${Object.entries(counts).map(
      ([state, n]) => html` · ${n} ${(STATE_LABEL[state] || state).toLowerCase()}`,
    )}${list.truncated ? ' (list truncated)' : ''}.
      ${' '}<a href="#login">Log in an account</a></p>
    <div class="scroll" role="region" aria-label="Sessions table" tabindex="0" data-held=${String(held)} ...${region}>
      <table class="sessions stack">
        <caption class="sr-only">Sessions, most recently used first${held ? ' (held in place while you work in it)' : ''}</caption>
        <thead><tr><th scope="col">Session</th><th scope="col">State</th><th scope="col">Last use</th><th
          scope="col">Requests by family</th><th scope="col">Proxy</th><th scope="col">Pools</th><th scope="col">Events</th><th
          scope="col">Actions</th></tr></thead>
        <tbody>
          ${rows.map(
            (s) => html`<tr key=${s.ref} data-ref=${s.ref} data-account=${s.account.username}>
            <th scope="row">${sessionName(s)}<br /><small class="muted">pk ${s.account.pk} · since ${when(s.created_at)}</small><${Label}
              session=${s} say=${say} /></th>
            <td data-label="State"><${State} session=${s} /></td>
            <td data-label="Last use"><time datetime=${s.last_used_at} title=${when(s.last_used_at)}>${ago(s.last_used_at)}</time></td>
            <td data-label="Requests"><${Usage} usage=${s.usage} /></td>
            <td data-label="Proxy">${s.proxy_host || html`<span class="muted">none</span>`}</td>
            <td data-label="Pools"><${Pools} session=${s} say=${say} /></td>
            <td data-label="Events"><${Watch} session=${s} say=${say} /></td>
            <td data-label="Actions"><${Actions} session=${s} say=${say} /></td>
          </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${sessions.length === 0 && html`<p>No sessions yet. <a href="#login">Log an account in</a>.</p>`}`;
}
