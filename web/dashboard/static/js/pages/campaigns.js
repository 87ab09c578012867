// Campaigns: list, compose (from a template or a body), audience with its
// count, send now or schedule in the viewer's time zone, cancel, test,
// duplicate, a progress bar while SENDING, stats afterwards.
import { html, useState, useEffect } from '../lib.js';
import { get, post, put, del, qs } from '../api.js';
import { PageHeader, useAsync, Loading, ErrorBox, Field, FormError, Link, navigate, fmtDate, fmtNum, fmtPct, Badge, Progress, Confirm, timeZone } from '../ui.js';
import { ConditionBuilder, newTree, useConditionMeta } from '../condition.js';
import { Preview } from './templates.js';
import { renderPreview, contactVars } from '../render.js';

const statusKind = { DRAFT: '', SCHEDULED: 'warn', SENDING: 'info', SENT: 'ok', CANCELLED: 'bad' };
export const StatusBadge = ({ status }) => html`<${Badge} kind=${statusKind[status]}>${status}<//>`;

export function CampaignsPage({ ctx }) {
  const [status, setStatus] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  useEffect(() => setPage(1), [status, search]);
  const list = useAsync(() => get('/campaigns' + qs({ page, pageSize: 20, status, search })), [ctx.project.id, status, search, page]);
  const d = list.data;
  return html`<div>
    <${PageHeader} title="Campaigns"><${Link} class="button primary" href="/app/campaigns/new">New campaign<//><//>
    <div class="toolbar">
      <${Field} label="Search" name="search" type="search" value=${search} onInput=${(e) => setSearch(e.target.value)} />
      <${Field} label="Status" name="status">${(id) => html`<select id=${id} value=${status} onChange=${(e) => setStatus(e.target.value)}>
        <option value="">All</option>${['DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED'].map((s) => html`<option>${s}</option>`)}</select>`}<//>
    </div>
    <${ErrorBox} error=${list.error} />
    ${list.loading && !d ? html`<${Loading} />` : null}
    ${d && !d.data.length ? html`<p class="muted">No campaigns yet.</p>` : null}
    ${d && d.data.length ? html`<div class="table-wrap"><table class="list"><thead><tr><th>Name</th><th>Status</th><th>Recipients</th><th>Delivered</th><th>Opened</th><th>Scheduled / sent</th></tr></thead><tbody>
      ${d.data.map((c) => html`<tr key=${c.id}><td><${Link} href=${'/app/campaigns/' + c.id}>${c.name}<//></td><td><${StatusBadge} status=${c.status} /></td>
        <td>${fmtNum(c.totalRecipients)}</td><td>${fmtNum(c.deliveredCount)}</td><td>${fmtNum(c.openedCount)}</td><td>${fmtDate(c.sentAt || c.scheduledFor)}</td></tr>`)}
    </tbody></table></div>
    <div class="pager"><button type="button" disabled=${page <= 1} onClick=${() => setPage(page - 1)}>Previous</button>
      <span class="muted">Page ${d.page} of ${Math.max(1, d.totalPages)}</span>
      <button type="button" disabled=${page >= d.totalPages} onClick=${() => setPage(page + 1)}>Next</button></div>` : null}
  </div>`;
}

export function CampaignPage({ ctx, params }) {
  const isNew = params.id === 'new';
  const c = useAsync(() => (isNew ? Promise.resolve(null) : get(`/campaigns/${params.id}`)), [params.id]);
  if (!isNew && c.loading && !c.data) return html`<${Loading} />`;
  if (c.error) return html`<${ErrorBox} error=${c.error} />`;
  if (isNew || c.data.status === 'DRAFT') return html`<${Compose} key=${c.data ? c.data.id : 'new'} ctx=${ctx} campaign=${c.data} onChange=${c.set} />`;
  return html`<${CampaignView} ctx=${ctx} campaign=${c.data} onChange=${c.set} />`;
}

const fields = ['name', 'description', 'subject', 'body', 'from', 'fromName', 'replyTo', 'type'];

function AudienceCount({ type, segmentId }) {
  const n = useAsync(() => (type === 'SEGMENT' && !segmentId ? Promise.resolve(null) : post('/audience/count', { audienceType: type, segmentId })), [type, segmentId]);
  if (!n.data) return n.error ? html`<span class="error">${n.error.message}</span>` : null;
  return html`<p class="live-count" aria-live="polite"><strong data-count=${n.data.subscribed}>${fmtNum(n.data.subscribed)}</strong> subscribed recipients (${fmtNum(n.data.count)} contacts)</p>`;
}

function Compose({ ctx, campaign, onChange }) {
  const isNew = !campaign;
  const [form, setForm] = useState(() => {
    const f = { type: 'MARKETING', audienceType: 'ALL', segmentId: '', audienceCondition: null };
    for (const k of fields) f[k] = (campaign && campaign[k]) || f[k] || '';
    if (campaign) Object.assign(f, { audienceType: campaign.audienceType, segmentId: campaign.segmentId || '', audienceCondition: campaign.audienceCondition });
    return f;
  });
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(false);
  const [when, setWhen] = useState('');
  const meta = useConditionMeta(ctx.project.id);
  const templates = useAsync(() => get('/templates?limit=100'), [ctx.project.id]);
  const set = (k, v) => { setForm({ ...form, [k]: v }); setSaved(false); };
  const body = () => {
    const b = {};
    for (const k of fields) b[k] = form[k];
    b.audienceType = form.audienceType;
    if (form.audienceType === 'SEGMENT') b.segmentId = form.segmentId || null;
    if (form.audienceType === 'FILTERED') b.audienceCondition = form.audienceCondition || newTree();
    return b;
  };
  const save = async () => {
    setError(null);
    try {
      let c;
      if (isNew) {
        c = (await post('/campaigns', body())).data;
        navigate('/app/campaigns/' + c.id, true);
      } else {
        c = await put(`/campaigns/${campaign.id}`, body());
        onChange(c);
      }
      setSaved(true);
      return c;
    } catch (err) {
      setError(err);
      return null;
    }
  };
  const submit = (e) => { e.preventDefault(); save(); };
  const send = async (scheduled) => {
    const c = await save();
    if (!c) return;
    try {
      await post(`/campaigns/${c.id}/send`, scheduled ? { scheduledFor: new Date(when).toISOString() } : {});
      onChange(await get(`/campaigns/${c.id}`));
    } catch (err) {
      setError(err);
    }
  };
  const fromTemplate = (id) => {
    const t = (templates.data ? templates.data.data : []).find((x) => x.id === id);
    if (!t) return;
    setForm({ ...form, subject: t.subject, body: t.body, from: t.from || form.from, fromName: t.fromName || form.fromName, replyTo: t.replyTo || form.replyTo, name: form.name || t.name });
  };
  const errs = error ? error.fields : {};
  return html`<div>
    <${PageHeader} title=${isNew ? 'New campaign' : form.name || 'Campaign'}>
      ${!isNew ? html`<${StatusBadge} status=${campaign.status} /> <${Duplicate} id=${campaign.id} />
        <${Confirm} label="Delete" danger question="Delete this draft?" onConfirm=${async () => { await del(`/campaigns/${campaign.id}`); navigate('/app/campaigns'); }} />` : null}
    <//>
    <p><${Link} href="/app/campaigns">← Campaigns<//></p>
    <div class="editor">
      <form class="card" onSubmit=${submit}>
        <${Field} label="Name" name="name" value=${form.name} onInput=${(e) => set('name', e.target.value)} errors=${errs} required />
        <${Field} label="Start from a template" name="template">${(id) => html`<select id=${id} value="" onChange=${(e) => fromTemplate(e.target.value)}>
          <option value="">Write the body here</option>${(templates.data ? templates.data.data : []).map((t) => html`<option value=${t.id}>${t.name}</option>`)}</select>`}<//>
        <div class="grid2">
          <${Field} label="From" name="from" type="email" value=${form.from} onInput=${(e) => set('from', e.target.value)} errors=${errs} required />
          <${Field} label="From name" name="fromName" value=${form.fromName} onInput=${(e) => set('fromName', e.target.value)} errors=${errs} />
          <${Field} label="Reply-to" name="replyTo" type="email" value=${form.replyTo} onInput=${(e) => set('replyTo', e.target.value)} errors=${errs} />
          <${Field} label="Type" name="type" errors=${errs}>${(id) => html`<select id=${id} value=${form.type} onChange=${(e) => set('type', e.target.value)}>
            <option>MARKETING</option><option>TRANSACTIONAL</option><option>HEADLESS</option></select>`}<//>
        </div>
        <${Field} label="Subject" name="subject" value=${form.subject} onInput=${(e) => set('subject', e.target.value)} errors=${errs} required />
        <${Field} label="HTML body" name="body" type="textarea" rows="10" class="code" value=${form.body} onInput=${(e) => set('body', e.target.value)} errors=${errs} required />
        <fieldset><legend>Audience</legend>
          <div class="radios" role="radiogroup" aria-label="Audience">
            ${[['ALL', 'All contacts'], ['SEGMENT', 'A segment'], ['FILTERED', 'A filter']].map(([v, l]) => html`<label class="check"><input type="radio" name="audienceType" value=${v} checked=${form.audienceType === v} onChange=${() => set('audienceType', v)} /> ${l}</label>`)}
          </div>
          ${form.audienceType === 'SEGMENT' ? html`<${Field} label="Segment" name="segmentId" errors=${errs}>${(id) => html`<select id=${id} value=${form.segmentId} onChange=${(e) => set('segmentId', e.target.value)}>
            <option value="">Choose a segment</option>${meta.segments.map((s) => html`<option value=${s.id}>${s.name} (${fmtNum(s.memberCount)})</option>`)}</select>`}<//>` : null}
          ${form.audienceType === 'FILTERED'
            ? html`<${ConditionBuilder} value=${form.audienceCondition || newTree()} onChange=${(c) => set('audienceCondition', c)} meta=${meta} errors=${errs} path="audienceCondition" />`
            : html`<${AudienceCount} type=${form.audienceType} segmentId=${form.segmentId} />`}
          ${form.type === 'MARKETING' ? html`<p class="muted">A marketing campaign reaches subscribed contacts only.</p>` : null}
        </fieldset>
        <${FormError} error=${error} shown=${[...fields, 'segmentId']} />
        <div class="row"><button type="submit">${isNew ? 'Save draft' : 'Save'}</button>${saved ? html`<span role="status" class="ok-text">Saved</span>` : null}</div>
        <fieldset><legend>Send</legend>
          <div class="row">
            <${Confirm} label="Send now" question="Send this campaign now to its audience?" onConfirm=${() => send(false)} />
          </div>
          <div class="row">
            <${Field} label=${`Schedule for (${timeZone})`} name="scheduledFor" type="datetime-local" value=${when} onInput=${(e) => setWhen(e.target.value)} errors=${errs} />
            <button type="button" disabled=${!when} onClick=${() => send(true)}>Schedule</button>
          </div>
        </fieldset>
      </form>
      <div>
        <section class="card"><h2>Preview</h2><${Preview} subject=${renderPreview(form.subject, contactVars(null), false)} html=${renderPreview(form.body, contactVars(null))} /></section>
        ${!isNew ? html`<${TestSend} id=${campaign.id} user=${ctx.user} />` : null}
      </div>
    </div>
  </div>`;
}

function Duplicate({ id }) {
  const go = async () => { const r = await post(`/campaigns/${id}/duplicate`); navigate('/app/campaigns/' + ((r.data || r).id)); };
  return html`<button type="button" onClick=${go}>Duplicate</button>`;
}

function TestSend({ id, user }) {
  const [to, setTo] = useState(user.email);
  const [state, setState] = useState(null);
  const send = async (e) => {
    e.preventDefault();
    setState({ busy: true });
    try { await post(`/campaigns/${id}/test`, { email: to.trim() }); setState({ done: true }); } catch (err) { setState({ error: err }); }
  };
  return html`<form class="card" onSubmit=${send}><h2>Test send</h2>
    <${Field} label="Send a test to" name="email" type="email" value=${to} onInput=${(e) => setTo(e.target.value)} errors=${state && state.error && state.error.fields} />
    ${state && state.error ? html`<${FormError} error=${state.error} shown=${['email']} />` : null}
    <div class="row"><button type="submit" disabled=${state && state.busy}>Send test</button>${state && state.done ? html`<span role="status" class="ok-text">Sent</span>` : null}</div>
  </form>`;
}

function CampaignView({ ctx, campaign, onChange }) {
  const [stats, setStats] = useState(null);
  const [error, setError] = useState(null);
  const active = campaign.status === 'SENDING' || campaign.status === 'SCHEDULED';
  useEffect(() => {
    let live = true;
    let timer;
    const tick = async () => {
      try {
        const [c, s] = await Promise.all([get(`/campaigns/${campaign.id}`), get(`/campaigns/${campaign.id}/stats`)]);
        if (!live) return;
        setStats(s);
        if (c.status !== campaign.status || c.updatedAt !== campaign.updatedAt) onChange(c);
        if (c.status === 'SENDING' || c.status === 'SCHEDULED') timer = setTimeout(tick, c.status === 'SENDING' ? 700 : 5000);
      } catch (e) {
        if (live) setError(e);
      }
    };
    tick();
    return () => { live = false; clearTimeout(timer); };
  }, [campaign.id, campaign.status]);
  const cancel = async () => { try { onChange((await post(`/campaigns/${campaign.id}/cancel`)).data || (await get(`/campaigns/${campaign.id}`))); } catch (e) { setError(e); } };
  const s = stats || campaign;
  const done = (s.sentCount || 0) + (s.failedCount || 0) + (s.cancelledCount || 0);
  return html`<div>
    <${PageHeader} title=${campaign.name}>
      <${StatusBadge} status=${campaign.status} /> <${Duplicate} id=${campaign.id} />
      ${active ? html`<${Confirm} label="Cancel campaign" danger question="Stop this campaign? Emails not yet handed to delivery are not sent." onConfirm=${cancel} />` : null}
    <//>
    <p><${Link} href="/app/campaigns">← Campaigns<//></p>
    <${ErrorBox} error=${error} />
    <section class="card">
      <p><strong>${campaign.subject}</strong> <span class="muted">from ${campaign.fromName ? `${campaign.fromName} <${campaign.from}>` : campaign.from}</span></p>
      <p class="muted">Audience: ${campaign.audienceType}${campaign.scheduledFor ? ` · scheduled for ${fmtDate(campaign.scheduledFor)} (${timeZone})` : ''}${campaign.sentAt ? ` · sent ${fmtDate(campaign.sentAt)}` : ''}</p>
      ${campaign.status === 'SENDING' ? html`<div class="sending"><h2>Sending…</h2>
        <${Progress} value=${done} max=${Math.max(1, s.totalRecipients || 0)} label="Sending progress" />
        <p class="muted">${fmtNum(done)} of ${fmtNum(s.totalRecipients)} handed to delivery</p></div>` : null}
    </section>
    ${stats ? html`<section class="stats" aria-label="Campaign stats">
      ${[['Recipients', stats.totalRecipients], ['Sent', stats.sentCount], ['Delivered', stats.deliveredCount, stats.deliveryRate], ['Opened', stats.openedCount, stats.openRate],
         ['Clicked', stats.clickedCount, stats.clickRate], ['Bounced', stats.bouncedCount, stats.bounceRate], ['Complaints', stats.complainedCount], ['Failed', stats.failedCount]]
        .map(([l, v, r]) => html`<div class="stat"><span class="label">${l}</span><span class="value" data-stat=${l.toLowerCase()}>${fmtNum(v)}</span>${r !== undefined ? html`<span class="sub">${fmtPct(r)}</span>` : null}</div>`)}
    </section>` : html`<${Loading} />`}
    <section class="card"><h2>Content</h2><${Preview} subject=${campaign.subject} html=${campaign.body} /></section>
  </div>`;
}
