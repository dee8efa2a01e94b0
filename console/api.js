// The page's requests: same origin, the key's cookie sent by the browser, and the console header
// that the service asks of every request that changes something.
export class ApiError extends Error {
  constructor(status, body) {
    super((body && body.detail) || `HTTP ${status}`);
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
