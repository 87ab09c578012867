// The API client: the same endpoints integrators use, with the session
// cookie (HttpOnly, sent by the browser) and X-Project-Id naming the
// project. Errors become ApiError with the envelope's field errors.

const session = { projectId: '', onUnauthorized: () => {} };

export function setProject(id) { session.projectId = id || ''; }
export function currentProjectId() { return session.projectId; }
export function onUnauthorized(fn) { session.onUnauthorized = fn; }

export class ApiError extends Error {
  constructor(status, body) {
    const e = body && body.error;
    const message = typeof e === 'string' ? e : (e && e.message) || (body && body.message) || `Request failed (${status})`;
    super(message);
    this.status = status;
    this.code = (e && e.code) || '';
    this.fields = {};
    for (const item of (e && e.errors) || []) {
      if (item.field && !this.fields[item.field]) this.fields[item.field] = item.message;
    }
    this.suggestion = (e && e.suggestion) || '';
  }
}

export async function api(method, path, body) {
  const headers = { Accept: 'application/json' };
  // Writes with the cookie need X-Project-Id (the CSRF rule); account
  // endpoints take any value when no project is chosen yet.
  if (session.projectId) headers['X-Project-Id'] = session.projectId;
  else if (method !== 'GET' && !path.startsWith('/auth/')) headers['X-Project-Id'] = 'none';
  let payload;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  const res = await fetch(path, { method, headers, body: payload, credentials: 'same-origin' });
  const text = await res.text();
  let data = null;
  if (text) {
    try { data = JSON.parse(text); } catch { data = text; }
  }
  if (!res.ok) {
    const err = new ApiError(res.status, data);
    if (res.status === 401 && !path.startsWith('/auth/')) session.onUnauthorized(err);
    throw err;
  }
  return data;
}

export const get = (p) => api('GET', p);
export const post = (p, b) => api('POST', p, b === undefined ? {} : b);
export const patch = (p, b) => api('PATCH', p, b);
export const put = (p, b) => api('PUT', p, b);
export const del = (p, b) => api('DELETE', p, b);

// qs builds a query string from the set values of an object.
export function qs(params) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  }
  const s = u.toString();
  return s ? '?' + s : '';
}

// poll calls fn until done(result) or the deadline; the dashboard's
// progress bars follow queued jobs this way.
export async function poll(fn, done, onStep, intervalMs = 400, maxMs = 10 * 60 * 1000) {
  const end = Date.now() + maxMs;
  for (;;) {
    const r = await fn();
    if (onStep) onStep(r);
    if (done(r) || Date.now() > end) return r;
    await new Promise((ok) => setTimeout(ok, intervalMs));
  }
}
