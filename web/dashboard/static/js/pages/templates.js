// Templates: list and editor with a live preview (a sandboxed frame), the
// placeholders a contact offers, a test send, usage and duplicate.
import { html, useState, useEffect, useRef } from '../lib.js';
import { get, post, patch, del, qs } from '../api.js';
import { PageHeader, useAsync, Loading, ErrorBox, Field, FormError, Link, navigate, fmtDate, useDebounced, Confirm, Badge } from '../ui.js';
import { renderPreview, contactVars } from '../render.js';
import { sampleDataKeys } from '../condition.js';

export function TemplatesPage({ ctx }) {
  const [search, setSearch] = useState('');
  const q = useDebounced(search, 250);
  const [pages, setPages] = useState(['']);
  const cursor = pages[pages.length - 1];
  useEffect(() => setPages(['']), [q]);
  const list = useAsync(() => get('/templates' + qs({ limit: 50, search: q, cursor })), [ctx.project.id, q, cursor]);
  const rows = list.data ? list.data.data : [];
  return html`<div>
    <${PageHeader} title="Templates"><${Link} class="button primary" href="/app/templates/new">New template<//><//>
    <div class="toolbar"><${Field} label="Search" name="search" type="search" value=${search} onInput=${(e) => setSearch(e.target.value)} /></div>
    <${ErrorBox} error=${list.error} />
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data && !rows.length ? html`<p class="muted">No templates yet.</p>` : null}
    ${rows.length ? html`<div class="table-wrap"><table class="list"><thead><tr><th>Name</th><th>Subject</th><th>Type</th><th>Updated</th></tr></thead><tbody>
      ${rows.map((t) => html`<tr key=${t.id}><td><${Link} href=${'/app/templates/' + t.id}>${t.name}<//></td><td>${t.subject}</td><td><${Badge}>${t.type}<//></td><td>${fmtDate(t.updatedAt)}</td></tr>`)}
    </tbody></table></div>` : null}
    <div class="pager">
      <button type="button" disabled=${pages.length < 2} onClick=${() => setPages(pages.slice(0, -1))}>Previous</button>
      <button type="button" disabled=${!list.data || !list.data.hasMore} onClick=${() => setPages([...pages, list.data.cursor])}>Next</button>
    </div>
  </div>`;
}

const empty = { name: '', description: '', subject: '', body: '<p>Hello {{ firstName | default: "there" }},</p>\n', from: '', fromName: '', replyTo: '', type: 'MARKETING' };
const builtins = ['email', 'herald_id', 'unsubscribeUrl', 'subscribeUrl', 'manageUrl'];

// Preview posts the rendered HTML into a sandboxed frame: /app/preview
// answers it under a policy of its own (no script), so mail's inline
// styles show without loosening the dashboard's policy.
export function Preview({ subject, html: body, title = 'Preview' }) {
  const form = useRef(null);
  const name = useRef('preview-' + Math.random().toString(36).slice(2)).current;
  const text = useDebounced(body, 200);
  useEffect(() => { if (form.current) form.current.submit(); }, [text]);
  return html`<div class="preview">
    <div class="preview-subject"><span class="muted">Subject:</span> <strong>${subject}</strong></div>
    <form ref=${form} method="post" action="/app/preview" target=${name} hidden><textarea name="html" value=${text}></textarea></form>
    <iframe name=${name} title=${title} sandbox="" src="/app/preview"></iframe>
  </div>`;
}

export function TemplatePage({ ctx, params }) {
  const isNew = params.id === 'new';
  const tpl = useAsync(() => (isNew ? Promise.resolve(empty) : get(`/templates/${params.id}`)), [params.id]);
  if (tpl.loading && !tpl.data) return html`<${Loading} />`;
  if (tpl.error) return html`<${ErrorBox} error=${tpl.error} />`;
  return html`<${TemplateEditor} ctx=${ctx} initial=${tpl.data} isNew=${isNew} />`;
}

function TemplateEditor({ ctx, initial, isNew }) {
  const [form, setForm] = useState(() => { const f = {}; for (const k of Object.keys(empty)) f[k] = initial[k] ?? ''; return f; });
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(false);
  const [contactQ, setContactQ] = useState('');
  const [contact, setContact] = useState(null);
  const cq = useDebounced(contactQ, 250);
  const contacts = useAsync(() => get('/contacts' + qs({ limit: 10, search: cq })), [cq]);
  useEffect(() => { if (!contact && contacts.data && contacts.data.data.length) setContact(contacts.data.data[0]); }, [contacts.data]);
  const fields = useAsync(sampleDataKeys, [ctx.project.id]);
  const usage = useAsync(() => (isNew ? Promise.resolve(null) : get(`/templates/${initial.id}/usage`)), [initial.id]);
  const bodyRef = useRef(null);
  const set = (k) => (e) => { setForm({ ...form, [k]: e.target.value }); setSaved(false); };
  const vars = contactVars(contact);

  const save = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      const t = isNew ? await post('/templates', form) : await patch(`/templates/${initial.id}`, form);
      setSaved(true);
      if (isNew) navigate('/app/templates/' + t.id, true);
    } catch (err) {
      setError(err); // what was typed stays
    }
  };
  const insert = (name) => {
    const ta = bodyRef.current && bodyRef.current.querySelector('textarea');
    const token = `{{ ${name} }}`;
    const at = ta ? ta.selectionStart : form.body.length;
    setForm({ ...form, body: form.body.slice(0, at) + token + form.body.slice(at) });
  };
  const duplicate = async () => {
    const t = await post(`/templates/${initial.id}/duplicate`);
    navigate('/app/templates/' + t.id);
  };
  const remove = async () => {
    await del(`/templates/${initial.id}`);
    navigate('/app/templates');
  };
  const errs = error ? error.fields : {};
  const dataFields = fields.data || [];
  const u = usage.data;
  return html`<div>
    <${PageHeader} title=${isNew ? 'New template' : form.name || 'Template'}>
      ${!isNew ? html`<button type="button" onClick=${duplicate}>Duplicate</button>
        <${Confirm} label="Delete" danger question="Delete this template?" onConfirm=${remove} />` : null}
    <//>
    <p><${Link} href="/app/templates">← Templates<//></p>
    <div class="editor">
      <form class="card" onSubmit=${save}>
        <${Field} label="Name" name="name" value=${form.name} onInput=${set('name')} errors=${errs} required />
        <${Field} label="Description (internal)" name="description" value=${form.description} onInput=${set('description')} errors=${errs} />
        <div class="grid2">
          <${Field} label="From" name="from" type="email" value=${form.from} onInput=${set('from')} errors=${errs} hint="Its domain must be verified." />
          <${Field} label="From name" name="fromName" value=${form.fromName} onInput=${set('fromName')} errors=${errs} />
          <${Field} label="Reply-to" name="replyTo" type="email" value=${form.replyTo} onInput=${set('replyTo')} errors=${errs} />
          <${Field} label="Type" name="type" errors=${errs}>${(id) => html`<select id=${id} value=${form.type} onChange=${set('type')}>
            <option>MARKETING</option><option>TRANSACTIONAL</option><option>HEADLESS</option></select>`}<//>
        </div>
        <${Field} label="Subject" name="subject" value=${form.subject} onInput=${set('subject')} errors=${errs} required />
        <div ref=${bodyRef}><${Field} label="HTML body" name="body" type="textarea" rows="14" class="code" value=${form.body} onInput=${set('body')} errors=${errs} /></div>
        <div class="placeholders" aria-label="Placeholders">
          <span class="muted">Placeholders:</span>
          ${[...builtins, ...dataFields].map((n) => html`<button type="button" class="chip" onClick=${() => insert(n)} title=${'Insert {{ ' + n + ' }}'}>{{ ${n} }}</button>`)}
        </div>
        <${FormError} error=${error} shown=${Object.keys(empty)} />
        <div class="row"><button type="submit" class="primary">${isNew ? 'Create template' : 'Save'}</button>${saved ? html`<span role="status" class="ok-text">Saved</span>` : null}</div>
      </form>
      <div>
        <section class="card">
          <h2>Preview</h2>
          <div class="toolbar">
            <${Field} label="Preview as contact" name="previewContact" type="search" value=${contactQ} onInput=${(e) => setContactQ(e.target.value)} placeholder="Search contacts" list="preview-contacts" />
            ${contacts.data && contacts.data.data.length ? html`<${Field} label="Contact" name="previewPick">${(id) => html`<select id=${id} value=${contact ? contact.id : ''} onChange=${(e) => setContact(contacts.data.data.find((c) => c.id === e.target.value))}>
              ${contacts.data.data.map((c) => html`<option value=${c.id}>${c.email}</option>`)}</select>`}<//>` : html`<span class="muted">No contacts: sample values.</span>`}
          </div>
          <${Preview} subject=${renderPreview(form.subject, vars, false)} html=${renderPreview(form.body, vars)} />
        </section>
        ${!isNew ? html`<${TestSend} templateId=${initial.id} contact=${contact} user=${ctx.user} />` : null}
        ${u ? html`<section class="card"><h2>Usage</h2>
          ${u.campaigns.length + u.workflows.length === 0 ? html`<p class="muted">No campaign or workflow uses this template.</p>` : html`<ul>
            ${u.campaigns.map((c) => html`<li>Campaign <${Link} href=${'/app/campaigns/' + c.id}>${c.name || c.id}<//></li>`)}
            ${u.workflows.map((w) => html`<li>Workflow ${w.name || w.id}</li>`)}</ul>`}
        </section>` : null}
      </div>
    </div>
  </div>`;
}

function TestSend({ templateId, contact, user }) {
  const [to, setTo] = useState(user.email);
  const [state, setState] = useState(null);
  const send = async (e) => {
    e.preventDefault();
    setState({ busy: true });
    try {
      await post('/v1/send', { to: to.trim(), template: templateId, data: (contact && contact.data) || {} });
      setState({ done: true });
    } catch (err) {
      setState({ error: err });
    }
  };
  return html`<form class="card" onSubmit=${send}>
    <h2>Test send</h2>
    <p class="muted">Sends the saved template, rendered with the preview contact's data.</p>
    <${Field} label="Send a test to" name="to" type="email" value=${to} onInput=${(e) => setTo(e.target.value)} errors=${state && state.error && state.error.fields} />
    ${state && state.error ? html`<${FormError} error=${state.error} shown=${['to']} />` : null}
    <div class="row"><button type="submit" disabled=${state && state.busy}>Send test</button>${state && state.done ? html`<span role="status" class="ok-text">Sent</span>` : null}</div>
  </form>`;
}
