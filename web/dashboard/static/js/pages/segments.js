// Segments: list, the condition builder with its live count, static
// members, the member list, compute and refresh.
import { html, useState } from '../lib.js';
import { get, post, patch, del, qs, api } from '../api.js';
import { PageHeader, useAsync, Loading, ErrorBox, Field, FormError, Link, navigate, fmtDate, fmtNum, Badge, Confirm } from '../ui.js';
import { ConditionBuilder, newTree, useConditionMeta } from '../condition.js';

export function SegmentsPage({ ctx }) {
  const list = useAsync(() => get('/segments'), [ctx.project.id]);
  return html`<div>
    <${PageHeader} title="Segments"><${Link} class="button primary" href="/app/segments/new">New segment<//><//>
    <${ErrorBox} error=${list.error} />
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data && !list.data.length ? html`<p class="muted">No segments yet. A segment is a saved audience: a condition, or a list of contacts.</p>` : null}
    ${list.data && list.data.length ? html`<div class="table-wrap"><table class="list"><thead><tr><th>Name</th><th>Type</th><th>Members</th><th>Updated</th></tr></thead><tbody>
      ${list.data.map((s) => html`<tr key=${s.id}><td><${Link} href=${'/app/segments/' + s.id}>${s.name}<//></td><td><${Badge}>${s.type}<//></td><td>${fmtNum(s.memberCount)}</td><td>${fmtDate(s.updatedAt)}</td></tr>`)}
    </tbody></table></div>` : null}
  </div>`;
}

export function SegmentPage({ ctx, params }) {
  const isNew = params.id === 'new';
  const seg = useAsync(() => (isNew ? Promise.resolve(null) : get(`/segments/${params.id}`)), [params.id]);
  if (seg.loading && !seg.data && !isNew) return html`<${Loading} />`;
  if (seg.error) return html`<${ErrorBox} error=${seg.error} />`;
  return html`<${SegmentEditor} ctx=${ctx} seg=${seg.data} onSaved=${seg.set} />`;
}

function SegmentEditor({ ctx, seg, onSaved }) {
  const isNew = !seg;
  const [form, setForm] = useState(() => ({
    name: seg ? seg.name : '', description: seg ? seg.description || '' : '', type: seg ? seg.type : 'DYNAMIC',
    trackMembership: seg ? !!seg.trackMembership : false, condition: (seg && seg.condition) || newTree(),
  }));
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(false);
  const [tick, setTick] = useState(0);
  const meta = useConditionMeta(ctx.project.id, seg && seg.id);
  const set = (k, v) => { setForm({ ...form, [k]: v }); setSaved(false); };
  const save = async (e) => {
    e.preventDefault();
    setError(null);
    const body = { name: form.name, description: form.description, trackMembership: form.trackMembership };
    if (form.type === 'DYNAMIC') body.condition = form.condition;
    try {
      const s = isNew ? await post('/segments', { ...body, type: form.type }) : await patch(`/segments/${seg.id}`, body);
      setSaved(true);
      setTick(tick + 1);
      if (isNew) navigate('/app/segments/' + s.id, true);
      else onSaved(s);
    } catch (err) {
      setError(err);
    }
  };
  const remove = async () => { await del(`/segments/${seg.id}`); navigate('/app/segments'); };
  const errs = error ? error.fields : {};
  return html`<div>
    <${PageHeader} title=${isNew ? 'New segment' : seg.name}>
      ${!isNew ? html`<${Confirm} label="Delete" danger question="Delete this segment?" onConfirm=${remove} />` : null}
    <//>
    <p><${Link} href="/app/segments">← Segments<//></p>
    <form class="card" onSubmit=${save}>
      <div class="grid2">
        <${Field} label="Name" name="name" value=${form.name} onInput=${(e) => set('name', e.target.value)} errors=${errs} required maxlength="100" />
        <${Field} label="Type" name="type" errors=${errs}>${(id) => html`<select id=${id} value=${form.type} disabled=${!isNew} onChange=${(e) => set('type', e.target.value)}>
          <option value="DYNAMIC">Dynamic (a condition)</option><option value="STATIC">Static (a list)</option></select>`}<//>
      </div>
      <${Field} label="Description" name="description" value=${form.description} onInput=${(e) => set('description', e.target.value)} errors=${errs} maxlength="500" />
      <label class="check"><input type="checkbox" checked=${form.trackMembership} onChange=${(e) => set('trackMembership', e.target.checked)} /> Track membership (entry and exit events, for workflows)</label>
      ${form.type === 'DYNAMIC' ? html`<fieldset><legend>Condition</legend>
        <${ConditionBuilder} value=${form.condition} onChange=${(c) => set('condition', c)} meta=${meta} errors=${errs} />
      </fieldset>` : null}
      <${FormError} error=${error} shown=${['name', 'description', 'type']} />
      <div class="row"><button type="submit" class="primary">${isNew ? 'Create segment' : 'Save'}</button>${saved ? html`<span role="status" class="ok-text">Saved</span>` : null}</div>
    </form>
    ${!isNew ? html`<${Members} key=${tick} seg=${seg} onChanged=${onSaved} />` : null}
  </div>`;
}

function Members({ seg, onChanged }) {
  const [page, setPage] = useState(1);
  const [tick, setTick] = useState(0);
  const members = useAsync(() => get(`/segments/${seg.id}/contacts` + qs({ page, pageSize: 20 })), [seg.id, page, tick]);
  const [emails, setEmails] = useState('');
  const [msg, setMsg] = useState(null);
  const [error, setError] = useState(null);
  const list = () => emails.split(/[\s,;]+/).map((s) => s.trim()).filter(Boolean);
  const act = async (fn) => {
    setError(null);
    setMsg(null);
    try {
      setMsg(await fn());
      setTick(tick + 1);
      onChanged(await get(`/segments/${seg.id}`));
    } catch (e) {
      setError(e);
    }
  };
  const m = members.data;
  return html`<section class="card" aria-labelledby="mem-h">
    <div class="row"><h2 id="mem-h">Members</h2><span class="muted">${fmtNum(seg.memberCount)} counted ${fmtDate(seg.updatedAt)}</span><span class="spacer"></span>
      ${seg.type === 'DYNAMIC' ? html`
        <button type="button" onClick=${() => act(async () => { const r = await post(`/segments/${seg.id}/compute`); return `Computed: ${r.added} entered, ${r.removed} left, ${r.total} members.`; })}>Compute</button>
        <button type="button" onClick=${() => act(async () => { const r = await post(`/segments/${seg.id}/refresh`); return `Recounted: ${r.memberCount} members.`; })}>Refresh count</button>` : null}
    </div>
    ${seg.type === 'STATIC' ? html`<div class="static-members">
      <${Field} label="Emails (one per line or comma separated)" name="emails" type="textarea" rows="3" value=${emails} onInput=${(e) => setEmails(e.target.value)} errors=${error && error.fields} />
      <button type="button" onClick=${() => act(async () => { const r = await post(`/segments/${seg.id}/members`, { emails: list(), createMissing: true }); setEmails(''); return `Added ${r.added}${r.notFound && r.notFound.length ? `; not found: ${r.notFound.join(', ')}` : ''}.`; })}>Add members</button>
      <button type="button" onClick=${() => act(async () => { const r = await api('DELETE', `/segments/${seg.id}/members`, { emails: list() }); setEmails(''); return `Removed ${r.removed}.`; })}>Remove members</button>
    </div>` : null}
    ${msg ? html`<p role="status">${msg}</p>` : null}
    <${FormError} error=${error} shown=${['emails']} />
    ${m ? html`<p class="muted">${fmtNum(m.total)} members now</p>
      <div class="table-wrap"><table class="list"><thead><tr><th>Email</th><th>Subscribed</th><th>Created</th></tr></thead><tbody>
        ${m.data.map((c) => html`<tr key=${c.id}><td><${Link} href=${'/app/contacts/' + c.id}>${c.email}<//></td><td>${c.subscribed ? 'yes' : 'no'}</td><td>${fmtDate(c.createdAt)}</td></tr>`)}
      </tbody></table></div>
      <div class="pager">
        <button type="button" disabled=${page <= 1} onClick=${() => setPage(page - 1)}>Previous</button>
        <span class="muted">Page ${page} of ${Math.max(1, Math.ceil(m.total / 20))}</span>
        <button type="button" disabled=${page * 20 >= m.total} onClick=${() => setPage(page + 1)}>Next</button>
      </div>` : html`<${ErrorBox} error=${members.error} />`}
  </section>`;
}
