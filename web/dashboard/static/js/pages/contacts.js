// Contacts: the list (search, subscription filter, sort, cursor pages,
// bulk actions), one contact (data with its JSON types, subscription,
// timeline) and CSV import with its progress and rejections.
import { html, useState, useEffect } from '../lib.js';
import { get, post, patch, del, qs, poll } from '../api.js';
import { PageHeader, useAsync, Loading, ErrorBox, Field, FormError, Link, navigate, fmtDate, fmtNum, useDebounced, Badge, Progress, Confirm } from '../ui.js';
import { ActivityList } from './activity.js';

export function ContactsPage({ ctx }) {
  const pid = ctx.project.id;
  const [search, setSearch] = useState('');
  const [subscribed, setSubscribed] = useState('');
  const [sort, setSort] = useState('createdAt');
  const [dir, setDir] = useState('desc');
  const [pages, setPages] = useState(['']);
  const [total, setTotal] = useState(null);
  const [selected, setSelected] = useState({});
  const [bulk, setBulk] = useState(null);
  const q = useDebounced(search, 250);
  const cursor = pages[pages.length - 1];
  useEffect(() => { setPages(['']); setSelected({}); }, [q, subscribed, sort, dir]);
  const list = useAsync(async () => {
    const r = await get('/contacts' + qs({ limit: 50, search: q, subscribed, sort, dir, cursor }));
    if (!cursor) setTotal(r.total); // the API counts on the first page only
    return r;
  }, [pid, q, subscribed, sort, dir, cursor]);
  const rows = list.data ? list.data.data : [];
  const ids = Object.keys(selected).filter((k) => selected[k]);
  const allOn = rows.length > 0 && rows.every((c) => selected[c.id]);

  const runBulk = async (action) => {
    setBulk({ action, state: 'queued', progress: 0 });
    try {
      const { jobId } = await post(`/contacts/bulk-${action}`, { contactIds: ids });
      const final = await poll(() => get(`/contacts/bulk/${jobId}`), (j) => j.state === 'completed' || j.state === 'failed',
        (j) => setBulk({ action, ...j }));
      setBulk({ action, ...final });
      setSelected({});
      list.reload();
    } catch (e) {
      setBulk({ action, error: e });
    }
  };

  return html`<div>
    <${PageHeader} title="Contacts">
      <${Link} class="button" href="/app/contacts/import">Import CSV<//>
      <${Link} class="button primary" href="/app/contacts/new">Add contact<//>
    <//>
    <div class="toolbar">
      <${Field} label="Search by email" name="search" type="search" value=${search} onInput=${(e) => setSearch(e.target.value)} placeholder="name@…" />
      <${Field} label="Subscription" name="subscribed">${(id) => html`<select id=${id} value=${subscribed} onChange=${(e) => setSubscribed(e.target.value)}>
        <option value="">All</option><option value="true">Subscribed</option><option value="false">Unsubscribed</option></select>`}<//>
      <${Field} label="Sort by" name="sort">${(id) => html`<select id=${id} value=${sort} onChange=${(e) => setSort(e.target.value)}>
        <option value="createdAt">Created</option><option value="email">Email</option></select>`}<//>
      <${Field} label="Order" name="dir">${(id) => html`<select id=${id} value=${dir} onChange=${(e) => setDir(e.target.value)}>
        <option value="desc">Descending</option><option value="asc">Ascending</option></select>`}<//>
    </div>
    <p class="muted" aria-live="polite">${total === null ? '' : `${fmtNum(total)} contacts`}</p>
    ${ids.length ? html`<div class="bulkbar" role="region" aria-label="Bulk actions">
      <span>${ids.length} selected</span>
      <button type="button" onClick=${() => runBulk('subscribe')}>Subscribe</button>
      <button type="button" onClick=${() => runBulk('unsubscribe')}>Unsubscribe</button>
      <${Confirm} label="Delete" danger question=${`Delete ${ids.length} contacts for good?`} onConfirm=${() => runBulk('delete')} />
    </div>` : null}
    ${bulk ? html`<div class="card" aria-live="polite">
      ${bulk.error ? html`<${ErrorBox} error=${bulk.error} />` : bulk.state === 'completed'
        ? html`<p>Bulk ${bulk.action} done.</p>`
        : html`<${Progress} value=${bulk.progress || 0} label=${'Bulk ' + bulk.action} />`}
    </div>` : null}
    <${ErrorBox} error=${list.error} />
    <div class="table-wrap"><table class="list">
      <thead><tr>
        <th><input type="checkbox" aria-label="Select all on this page" checked=${allOn}
          onChange=${(e) => { const s = { ...selected }; rows.forEach((c) => (s[c.id] = e.target.checked)); setSelected(s); }} /></th>
        <th>Email</th><th>Subscribed</th><th>Created</th>
      </tr></thead>
      <tbody>
        ${rows.map((c) => html`<tr key=${c.id}>
          <td><input type="checkbox" aria-label=${'Select ' + c.email} checked=${!!selected[c.id]} onChange=${(e) => setSelected({ ...selected, [c.id]: e.target.checked })} /></td>
          <td><${Link} href=${'/app/contacts/' + c.id}>${c.email}<//></td>
          <td>${c.subscribed ? html`<${Badge} kind="ok">Subscribed<//>` : html`<${Badge}>Unsubscribed<//>`}</td>
          <td>${fmtDate(c.createdAt)}</td>
        </tr>`)}
      </tbody>
    </table></div>
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data && !rows.length ? html`<p class="muted">No contacts match.</p>` : null}
    <div class="pager">
      <button type="button" disabled=${pages.length < 2} onClick=${() => setPages(pages.slice(0, -1))}>Previous</button>
      <span class="muted">Page ${pages.length}</span>
      <button type="button" disabled=${!list.data || !list.data.hasMore} onClick=${() => setPages([...pages, list.data.cursor])}>Next</button>
    </div>
  </div>`;
}

// A data row keeps the JSON type of its value: the editor for a number
// makes a number, "true" stays a string unless the type is boolean.
const types = ['string', 'number', 'boolean', 'json'];
function typeOf(v) {
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'string') return 'string';
  return 'json';
}
function toRow(k, v) {
  const t = typeOf(v);
  return { key: k, type: t, text: t === 'json' ? JSON.stringify(v) : String(v), orig: k };
}
function rowValue(r) {
  switch (r.type) {
    case 'number': {
      const n = Number(r.text);
      if (r.text.trim() === '' || !isFinite(n)) throw new Error(`${r.key}: not a number`);
      return n;
    }
    case 'boolean': return r.text === 'true';
    case 'json':
      try { return JSON.parse(r.text); } catch { throw new Error(`${r.key}: not valid JSON`); }
    default: return r.text;
  }
}

function DataEditor({ contact, onSaved }) {
  const initial = Object.entries(contact.data || {}).map(([k, v]) => toRow(k, v));
  const [rows, setRows] = useState(initial);
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(false);
  const set = (i, k, v) => setRows(rows.map((r, j) => (j === i ? { ...r, [k]: v, ...(k === 'type' && v === 'boolean' ? { text: r.text === 'true' ? 'true' : 'false' } : {}) } : r)));
  const save = async (e) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    const data = {};
    try {
      for (const r of rows) {
        if (!r.key.trim()) continue;
        data[r.key.trim()] = rowValue(r);
      }
    } catch (err) {
      return setError({ message: err.message, fields: {} });
    }
    // Keys removed or renamed are deleted with null, as the API reads it.
    for (const k of Object.keys(contact.data || {})) if (!(k in data)) data[k] = null;
    try {
      onSaved(await patch(`/contacts/${contact.id}`, { data }));
      setSaved(true);
    } catch (err) {
      setError(err); // the rows stay as typed
    }
  };
  return html`<form class="card" onSubmit=${save} aria-labelledby="data-h">
    <h2 id="data-h">Data</h2>
    <table class="data-edit"><thead><tr><th>Key</th><th>Type</th><th>Value</th><th><span class="sr-only">Remove</span></th></tr></thead><tbody>
      ${rows.map((r, i) => html`<tr key=${i}>
        <td><input aria-label=${'Key ' + (i + 1)} value=${r.key} onInput=${(e) => set(i, 'key', e.target.value)} /></td>
        <td><select aria-label=${'Type of ' + (r.key || 'key ' + (i + 1))} value=${r.type} onChange=${(e) => set(i, 'type', e.target.value)}>
          ${types.map((t) => html`<option value=${t}>${t}</option>`)}</select></td>
        <td>${r.type === 'boolean'
          ? html`<select aria-label=${'Value of ' + (r.key || 'key ' + (i + 1))} value=${r.text} onChange=${(e) => set(i, 'text', e.target.value)}><option>true</option><option>false</option></select>`
          : html`<input aria-label=${'Value of ' + (r.key || 'key ' + (i + 1))} type=${r.type === 'number' ? 'number' : 'text'} step="any" value=${r.text} onInput=${(e) => set(i, 'text', e.target.value)}
              class=${error && error.fields && error.fields['data.' + r.key] ? 'invalid' : ''} />`}
          ${error && error.fields && error.fields['data.' + r.key] ? html`<small class="error" role="alert">${error.fields['data.' + r.key]}</small>` : null}</td>
        <td><button type="button" class="small" aria-label=${'Remove ' + (r.key || 'row ' + (i + 1))} onClick=${() => setRows(rows.filter((_, j) => j !== i))}>Remove</button></td>
      </tr>`)}
    </tbody></table>
    <button type="button" onClick=${() => setRows([...rows, { key: '', type: 'string', text: '' }])}>Add key</button>
    <${FormError} error=${error} shown=${rows.map((r) => 'data.' + r.key)} />
    <div class="row"><button type="submit" class="primary">Save data</button>${saved ? html`<span role="status" class="ok-text">Saved</span>` : null}</div>
  </form>`;
}

function NewContact() {
  const [form, setForm] = useState({ email: '', subscribed: true });
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      const c = await post('/contacts', { email: form.email.trim(), subscribed: form.subscribed });
      navigate('/app/contacts/' + c.id, true);
    } catch (err) {
      setError(err);
    }
  };
  return html`<div>
    <${PageHeader} title="Add contact" />
    <form class="card narrow" onSubmit=${submit}>
      <${Field} label="Email" name="email" type="email" value=${form.email} onInput=${(e) => setForm({ ...form, email: e.target.value })} errors=${error && error.fields} required />
      <label class="check"><input type="checkbox" checked=${form.subscribed} onChange=${(e) => setForm({ ...form, subscribed: e.target.checked })} /> Subscribed</label>
      <${FormError} error=${error} shown=${['email']} />
      <button type="submit" class="primary">Add contact</button>
    </form>
  </div>`;
}

export function ContactPage({ ctx, params }) {
  if (params.id === 'new') return html`<${NewContact} />`;
  const c = useAsync(() => get(`/contacts/${params.id}`), [ctx.project.id, params.id]);
  const timeline = useAsync(() => get(`/activity?limit=50&contactId=${encodeURIComponent(params.id)}`), [ctx.project.id, params.id]);
  const [error, setError] = useState(null);
  if (c.loading && !c.data) return html`<${Loading} />`;
  if (c.error) return html`<${ErrorBox} error=${c.error} />`;
  const contact = c.data;
  const toggle = async () => {
    setError(null);
    try {
      c.set(await patch(`/contacts/${contact.id}`, { subscribed: !contact.subscribed }));
      timeline.reload();
    } catch (e) {
      setError(e);
    }
  };
  const remove = async () => {
    await del(`/contacts/${contact.id}`);
    navigate('/app/contacts');
  };
  return html`<div>
    <${PageHeader} title=${contact.email}>
      <${Confirm} label="Delete contact" danger question="Delete this contact and its history for good?" onConfirm=${remove} />
    <//>
    <p><${Link} href="/app/contacts">← Contacts<//></p>
    <section class="card row">
      <span>${contact.subscribed ? html`<${Badge} kind="ok">Subscribed<//>` : html`<${Badge}>Unsubscribed<//>`}</span>
      <button type="button" onClick=${toggle}>${contact.subscribed ? 'Unsubscribe' : 'Subscribe'}</button>
      <span class="muted">Created ${fmtDate(contact.createdAt)} · updated ${fmtDate(contact.updatedAt)}</span>
    </section>
    <${ErrorBox} error=${error} />
    <${DataEditor} key=${contact.id} contact=${contact} onSaved=${(x) => { c.set(x); timeline.reload(); }} />
    <section class="card" aria-labelledby="tl-h">
      <h2 id="tl-h">Timeline</h2>
      ${timeline.data ? html`<${ActivityList} items=${timeline.data.data} showContact=${false} />` : html`<${ErrorBox} error=${timeline.error} />`}
    </section>
  </div>`;
}

export function ImportPage({ ctx }) {
  const [file, setFile] = useState(null);
  const [job, setJob] = useState(null);
  const [error, setError] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    setError(null);
    if (!file) return setError({ message: 'Choose a CSV file.', fields: { file: 'Choose a CSV file.' } });
    const fd = new FormData();
    fd.append('file', file);
    try {
      const { jobId } = await post('/contacts/import', fd);
      setJob({ id: jobId, state: 'queued', progress: 0 });
      const final = await poll(() => get(`/contacts/import/${jobId}`), (j) => j.state === 'completed' || j.state === 'failed',
        (j) => setJob(j), 300);
      setJob(final);
    } catch (err) {
      setError(err);
    }
  };
  const res = job && job.result;
  return html`<div>
    <${PageHeader} title="Import contacts" />
    <p><${Link} href="/app/contacts">← Contacts<//></p>
    <form class="card narrow" onSubmit=${submit}>
      <p class="muted">A CSV with a header row: <code>email</code>, optionally <code>subscribed</code> (true/false/yes/no/1/0), every other column becomes contact data. Up to 5 MB.</p>
      <${Field} label="CSV file" name="file" errors=${error && error.fields}>${(id, d) => html`<input id=${id} type="file" accept=".csv,text/csv" aria-describedby=${d} onChange=${(e) => setFile(e.target.files[0] || null)} />`}<//>
      <${FormError} error=${error} shown=${['file']} />
      <button type="submit" class="primary" disabled=${job && job.state !== 'completed' && job.state !== 'failed'}>Import</button>
    </form>
    ${job ? html`<section class="card" aria-live="polite" aria-labelledby="imp-h">
      <h2 id="imp-h">${job.state === 'completed' ? 'Import finished' : job.state === 'failed' ? 'Import failed' : 'Importing…'}</h2>
      <${Progress} value=${job.state === 'completed' ? 100 : job.progress || 0} label="Import progress" />
      ${job.failedReason ? html`<div class="alert error">${job.failedReason}</div>` : null}
      ${res ? html`<p class="import-result">${fmtNum(res.created)} created, ${fmtNum(res.updated)} updated, ${fmtNum(res.rejected)} rejected.</p>` : null}
      ${res && res.errors && res.errors.length ? html`<details open><summary>Rejected rows</summary>
        <table><thead><tr><th>Row</th><th>Reason</th></tr></thead><tbody>
          ${res.errors.map((x) => html`<tr><td>${x.row}</td><td>${x.reason}</td></tr>`)}
        </tbody></table>
        ${res.rejected > res.errors.length ? html`<p class="muted">The first ${res.errors.length} of ${res.rejected} rejections.</p>` : null}
      </details>` : null}
    </section>` : null}
  </div>`;
}
