// A close reading of a template for the preview: {{ key }} and
// {{ key | default: "x" }} take the chosen contact's values, escaped as
// Herald escapes them; other Liquid stays as written. Sending renders on
// the server, so a test send shows the exact result.
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));

export function contactVars(contact) {
  const c = contact || { id: 'contact-id', email: 'someone@example.com', data: {} };
  return {
    ...(c.data || {}),
    email: c.email, herald_id: c.id, herald_email: c.email,
    unsubscribeUrl: '#unsubscribe', subscribeUrl: '#subscribe', manageUrl: '#manage',
  };
}

function lookup(vars, path) {
  let v = vars;
  for (const part of path.split('.')) {
    if (v === null || v === undefined || typeof v !== 'object') return undefined;
    v = v[part];
  }
  return v;
}

export function renderPreview(text, vars, escape = true) {
  return String(text || '').replace(/{{\s*([\w.-]+)\s*(\|\s*default:\s*("([^"]*)"|'([^']*)'|[^}\s]+))?\s*}}/g, (m, key, _f, _d, dq, sq) => {
    let v = lookup(vars, key);
    if (v === undefined || v === null || v === '') {
      if (_f === undefined) return '';
      v = dq !== undefined ? dq : sq !== undefined ? sq : _d;
    }
    if (typeof v === 'object') v = JSON.stringify(v);
    return escape ? esc(v) : String(v);
  });
}
