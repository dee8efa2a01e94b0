// The page's requests: same origin, the key's cookie sent by the browser, and the console header
// that the service asks of every request that changes something.
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.detail || `HTTP ${status}`);
    this.status = status;
    this.body = body || {};
    this.excType = this.body.exc_type || '';
  }
}

export async function api(method, path, fields) {
  const init = { method, headers: { 'X-Socialgate-Console': '1', Accept: 'application/json' }, credentials: 'same-origin' };
  let url = path;
  if (fields && method === 'GET') url += '?' + new URLSearchParams(fields);
  else if (fields) init.body = new URLSearchParams(fields);
  const response = await fetch(url, init);
  const text = await response.text();
  let body = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  if (!response.ok) throw new ApiError(response.status, typeof body === 'object' ? body : { detail: text });
  return body;
}

export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '–');

export function ago(iso, now = Date.now()) {
  if (!iso) return '–';
  const seconds = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} d ago`;
}

/** What the page says after an action: a success, or an error with the API's hint (what to do about it). */
export function said(text, error) {
  if (!error) return { kind: 'ok', text, hint: '' };
  return { kind: 'error', text: `${text}: ${error.message}`, hint: error.body?.hint || '' };
}

/**
 * A session as the page names it: its account, then the operator's label, else the first characters of
 * its ref, so that nine sessions of one account read as nine different names.
 */
export function sessionName(session) {
  const account = session.account.username || session.account.pk;
  return session.label ? `${account} “${session.label}”` : `${account} #${session.ref.slice(0, 6)}`;
}

/** What else tells sessions apart in a list: the proxy and when the session was made. */
export function sessionDetail(session) {
  return [session.proxy_host ? `via ${session.proxy_host}` : 'no proxy', `since ${when(session.created_at)}`].join(' · ');
}
