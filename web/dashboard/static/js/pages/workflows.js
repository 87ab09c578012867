// Workflows: list and create; one workflow's step graph with each step
// type's settings, branches labelled yes/no and EVENT/TIMEOUT, add, remove
// and connect steps, the enable toggle; executions with their step
// history, start for a contact, cancel.
import { html, useState, useEffect } from '../lib.js';
import { get, post, patch, del, qs, api } from '../api.js';
import { PageHeader, useAsync, Loading, ErrorBox, Field, FormError, Link, navigate, fmtDate, fmtNum, Badge, Confirm, useDebounced } from '../ui.js';

const stepTypes = ['SEND_EMAIL', 'DELAY', 'WAIT_FOR_EVENT', 'CONDITION', 'WEBHOOK', 'UPDATE_CONTACT', 'EXIT'];
const statusKind = { RUNNING: 'info', WAITING: 'warn', COMPLETED: 'ok', EXITED: '', FAILED: 'bad', CANCELLED: 'bad' };
const conditionOps = ['equals', 'notEquals', 'contains', 'notContains', 'greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual', 'exists', 'notExists'];

export function WorkflowsPage({ ctx }) {
  const [search, setSearch] = useState('');
  const q = useDebounced(search, 250);
  const list = useAsync(() => get('/workflows' + qs({ limit: 50, search: q })), [ctx.project.id, q]);
  const [form, setForm] = useState({ name: '', eventName: '' });
  const [error, setError] = useState(null);
  const create = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      const w = await post('/workflows', { name: form.name.trim(), eventName: form.eventName.trim() });
      navigate('/app/workflows/' + w.id);
    } catch (err) {
      setError(err);
    }
  };
  const rows = list.data ? list.data.data : [];
  return html`<div>
    <${PageHeader} title="Workflows" />
    <form class="card inline-form" onSubmit=${create}>
      <${Field} label="Workflow name" name="name" value=${form.name} onInput=${(e) => setForm({ ...form, name: e.target.value })} errors=${error && error.fields} required />
      <${Field} label="Starts on event" name="eventName" value=${form.eventName} onInput=${(e) => setForm({ ...form, eventName: e.target.value })} errors=${error && error.fields} placeholder="signed-up" required />
      <button type="submit" class="primary">Create workflow</button>
      <${FormError} error=${error} shown=${['name', 'eventName']} />
    </form>
    <div class="toolbar"><${Field} label="Search" name="search" type="search" value=${search} onInput=${(e) => setSearch(e.target.value)} /></div>
    <${ErrorBox} error=${list.error} />
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    ${list.data && !rows.length ? html`<p class="muted">No workflows yet. A workflow runs steps for a contact when an event happens.</p>` : null}
    ${rows.length ? html`<div class="table-wrap"><table class="list"><thead><tr><th>Name</th><th>Trigger</th><th>Status</th><th>Updated</th></tr></thead><tbody>
      ${rows.map((w) => html`<tr key=${w.id}><td><${Link} href=${'/app/workflows/' + w.id}>${w.name}<//></td><td><code>${(w.triggerConfig || {}).eventName || w.triggerType}</code></td>
        <td>${w.enabled ? html`<${Badge} kind="ok">Enabled<//>` : html`<${Badge}>Disabled<//>`}</td><td>${fmtDate(w.updatedAt)}</td></tr>`)}
    </tbody></table></div>` : null}
  </div>`;
}

function summary(s) {
  const c = s.config || {};
  switch (s.type) {
    case 'TRIGGER': return `when ${c.eventName} happens`;
    case 'SEND_EMAIL': return `send template ${s.templateId || c.templateId || '?'}${c.recipient && c.recipient.type === 'CUSTOM' ? ` to ${c.recipient.customEmail}` : ''}`;
    case 'DELAY': return `wait ${c.amount} ${c.unit}`;
    case 'WAIT_FOR_EVENT': return `wait for ${c.eventName}${c.timeout ? `, at most ${c.timeout} s` : ''}`;
    case 'CONDITION': return `${c.field} ${c.operator}${c.value !== undefined ? ' ' + JSON.stringify(c.value) : ''}`;
    case 'WEBHOOK': return `${c.method || 'POST'} ${c.url}`;
    case 'UPDATE_CONTACT': return `${c.updates ? 'set ' + Object.keys(c.updates).join(', ') : ''}${c.subscriptionAction && c.subscriptionAction !== 'none' ? ` ${c.subscriptionAction}` : ''}`;
    case 'EXIT': return `exit${c.reason ? ': ' + c.reason : ''}`;
  }
  return '';
}

function edgeLabel(t) {
  const b = t.branch || (t.condition && t.condition.branch);
  return b || t.waitOutcome || '';
}

// StepConfig edits the settings of one step type.
function StepConfig({ type, config, setConfig, templates, errors }) {
  const set = (k, v) => setConfig({ ...config, [k]: v });
  const f = (label, k, extra = {}) => html`<${Field} label=${label} name=${'config.' + k} value=${config[k] ?? ''} errors=${errors}
    onInput=${(e) => set(k, extra.type === 'number' ? Number(e.target.value) : e.target.value)} ...${extra} />`;
  switch (type) {
    case 'SEND_EMAIL':
      return html`<div class="grid2">
        <${Field} label="Template" name="config.templateId" errors=${errors}>${(id) => html`<select id=${id} value=${config.templateId || ''} onChange=${(e) => set('templateId', e.target.value)}>
          <option value="">Choose a template</option>${templates.map((t) => html`<option value=${t.id}>${t.name}</option>`)}</select>`}<//>
        <${Field} label="Send to another address (optional)" name="config.recipient.customEmail" type="email" errors=${errors}
          value=${(config.recipient && config.recipient.customEmail) || ''}
          onInput=${(e) => set('recipient', e.target.value ? { type: 'CUSTOM', customEmail: e.target.value } : { type: 'CONTACT' })} />
      </div>`;
    case 'DELAY':
      return html`<div class="grid2">${f('Wait for', 'amount', { type: 'number', min: 1 })}
        <${Field} label="Unit" name="config.unit" errors=${errors}>${(id) => html`<select id=${id} value=${config.unit || 'minutes'} onChange=${(e) => set('unit', e.target.value)}>
          ${['seconds', 'minutes', 'hours', 'days'].map((u) => html`<option>${u}</option>`)}</select>`}<//></div>`;
    case 'WAIT_FOR_EVENT':
      return html`<div class="grid2">${f('Event name', 'eventName')}${f('Timeout in seconds (optional)', 'timeout', { type: 'number', min: 1 })}</div>`;
    case 'CONDITION':
      return html`<div class="grid2">${f('Field', 'field', { placeholder: 'data.plan, email, subscribed, event.amount' })}
        <${Field} label="Operator" name="config.operator" errors=${errors}>${(id) => html`<select id=${id} value=${config.operator || 'equals'} onChange=${(e) => set('operator', e.target.value)}>
          ${conditionOps.map((o) => html`<option>${o}</option>`)}</select>`}<//>
        ${['exists', 'notExists'].includes(config.operator) ? null : f('Value', 'value')}</div>`;
    case 'WEBHOOK':
      return html`<div class="grid2">${f('URL', 'url', { type: 'url', placeholder: 'https://…' })}
        <${Field} label="Method" name="config.method" errors=${errors}>${(id) => html`<select id=${id} value=${config.method || 'POST'} onChange=${(e) => set('method', e.target.value)}>
          ${['POST', 'GET', 'PUT', 'PATCH', 'DELETE'].map((m) => html`<option>${m}</option>`)}</select>`}<//></div>`;
    case 'UPDATE_CONTACT':
      return html`<div class="grid2">
        <${Field} label="Data to set (JSON object)" name="config.updates" type="textarea" rows="2" errors=${errors} value=${config._updatesText ?? (config.updates ? JSON.stringify(config.updates) : '')}
          onInput=${(e) => { let u; try { u = e.target.value.trim() ? JSON.parse(e.target.value) : undefined; } catch { u = config.updates; } setConfig({ ...config, updates: u, _updatesText: e.target.value }); }} />
        <${Field} label="Subscription" name="config.subscriptionAction" errors=${errors}>${(id) => html`<select id=${id} value=${config.subscriptionAction || 'none'} onChange=${(e) => set('subscriptionAction', e.target.value)}>
          <option value="none">Leave as it is</option><option value="subscribe">Subscribe</option><option value="unsubscribe">Unsubscribe</option></select>`}<//></div>`;
    case 'EXIT':
      return f('Reason (optional)', 'reason');
  }
  return null;
}

const defaults = { SEND_EMAIL: {}, DELAY: { amount: 1, unit: 'minutes' }, WAIT_FOR_EVENT: { eventName: '' }, CONDITION: { field: '', operator: 'equals', value: '' }, WEBHOOK: { url: '', method: 'POST' }, UPDATE_CONTACT: { subscriptionAction: 'none' }, EXIT: {} };

function clean(config) {
  const { _updatesText, ...rest } = config;
  return rest;
}

function AddStep({ wf, templates, onDone }) {
  const [type, setType] = useState('SEND_EMAIL');
  const [name, setName] = useState('');
  const [config, setConfig] = useState(defaults.SEND_EMAIL);
  const [error, setError] = useState(null);
  const add = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      await post(`/workflows/${wf.id}/steps`, { type, name: name.trim() || undefined, config: clean(config), autoConnect: true });
      setName('');
      setConfig(defaults[type]);
      onDone();
    } catch (err) {
      setError(err);
    }
  };
  return html`<form class="card" onSubmit=${add} aria-labelledby="add-step-h">
    <h2 id="add-step-h">Add a step</h2>
    <div class="grid2">
      <${Field} label="Step type" name="type">${(id) => html`<select id=${id} value=${type} onChange=${(e) => { setType(e.target.value); setConfig(defaults[e.target.value]); }}>
        ${stepTypes.map((t) => html`<option>${t}</option>`)}</select>`}<//>
      <${Field} label="Step name (optional)" name="stepName" value=${name} onInput=${(e) => setName(e.target.value)} />
    </div>
    <${StepConfig} type=${type} config=${config} setConfig=${setConfig} templates=${templates} errors=${error && error.fields} />
    <p class="muted">The new step follows the newest step that has no next step yet (a condition's "yes", a wait's "EVENT").</p>
    <${FormError} error=${error} shown=${Object.keys(config).map((k) => 'config.' + k).concat(['type'])} />
    <button type="submit" class="primary">Add step</button>
  </form>`;
}

function Connect({ wf, onDone }) {
  const steps = wf.steps || [];
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [label, setLabel] = useState('');
  const [error, setError] = useState(null);
  const fromStep = steps.find((s) => s.id === from);
  const choices = fromStep && fromStep.type === 'CONDITION' ? ['yes', 'no'] : fromStep && fromStep.type === 'WAIT_FOR_EVENT' ? ['EVENT', 'TIMEOUT'] : [];
  useEffect(() => setLabel(choices[0] || ''), [from]);
  const connect = async (e) => {
    e.preventDefault();
    setError(null);
    const body = { fromStepId: from, toStepId: to };
    if (fromStep && fromStep.type === 'CONDITION') body.branch = label;
    if (fromStep && fromStep.type === 'WAIT_FOR_EVENT') body.waitOutcome = label;
    try { await post(`/workflows/${wf.id}/transitions`, body); onDone(); } catch (err) { setError(err); }
  };
  const opt = (s) => html`<option value=${s.id}>${s.name} (${s.type})</option>`;
  return html`<form class="card inline-form" onSubmit=${connect} aria-label="Connect steps">
    <${Field} label="From step" name="fromStepId">${(id) => html`<select id=${id} value=${from} onChange=${(e) => setFrom(e.target.value)}><option value="">Choose</option>${steps.filter((s) => s.type !== 'EXIT').map(opt)}</select>`}<//>
    ${choices.length ? html`<${Field} label="Branch" name="branch">${(id) => html`<select id=${id} value=${label} onChange=${(e) => setLabel(e.target.value)}>${choices.map((c) => html`<option>${c}</option>`)}</select>`}<//>` : null}
    <${Field} label="To step" name="toStepId">${(id) => html`<select id=${id} value=${to} onChange=${(e) => setTo(e.target.value)}><option value="">Choose</option>${steps.filter((s) => s.type !== 'TRIGGER' && s.id !== from).map(opt)}</select>`}<//>
    <button type="submit" disabled=${!from || !to}>Connect</button>
    <${FormError} error=${error} shown=${[]} />
  </form>`;
}

function StepCard({ wf, step, templates, onChange }) {
  const [editing, setEditing] = useState(false);
  const [config, setConfig] = useState(step.config || {});
  const [error, setError] = useState(null);
  const out = (wf.transitions || []).filter((t) => t.fromStepId === step.id);
  const name = (id) => ((wf.steps || []).find((s) => s.id === id) || {}).name || id;
  const save = async (e) => {
    e.preventDefault();
    setError(null);
    try { await patch(`/workflows/${wf.id}/steps/${step.id}`, { config: clean(config) }); setEditing(false); onChange(); } catch (err) { setError(err); }
  };
  const act = async (fn) => { setError(null); try { await fn(); onChange(); } catch (err) { setError(err); } };
  return html`<li class="step card" data-step-type=${step.type}>
    <div class="row"><${Badge} kind="info">${step.type}<//><strong>${step.name}</strong><span class="muted">${summary(step)}</span><span class="spacer"></span>
      ${step.type !== 'TRIGGER' ? html`<button type="button" class="small" onClick=${() => setEditing(!editing)}>${editing ? 'Close' : 'Edit'}</button>
        <${Confirm} label="Remove step" danger question="Remove this step and every step after it?" onConfirm=${() => act(() => del(`/workflows/${wf.id}/steps/${step.id}`))} />
        ${step.type !== 'CONDITION' && step.type !== 'WAIT_FOR_EVENT' ? html`<button type="button" class="small" onClick=${() => act(() => api('DELETE', `/workflows/${wf.id}/steps/${step.id}?splice=true`))}>Remove only this step</button>` : null}` : null}
    </div>
    ${out.length ? html`<ul class="edges">${out.map((t) => html`<li>→ ${edgeLabel(t) ? html`<${Badge}>${edgeLabel(t)}<//> ` : null}${name(t.toStepId)}
      <button type="button" class="small" aria-label=${`Disconnect ${step.name} from ${name(t.toStepId)}`} onClick=${() => act(() => del(`/workflows/${wf.id}/transitions/${t.id}`))}>Disconnect</button></li>`)}</ul>` : null}
    ${editing ? html`<form onSubmit=${save}><${StepConfig} type=${step.type} config=${config} setConfig=${setConfig} templates=${templates} errors=${error && error.fields} />
      <button type="submit" class="primary">Save step</button></form>` : null}
    <${FormError} error=${error} shown=${editing ? Object.keys(config).map((k) => 'config.' + k) : []} />
  </li>`;
}

// order lists the steps from the trigger along the transitions, then any
// step not reached.
function order(wf) {
  const steps = wf.steps || [];
  const seen = new Set();
  const out = [];
  const visit = (s) => {
    if (!s || seen.has(s.id)) return;
    seen.add(s.id);
    out.push(s);
    for (const t of (wf.transitions || []).filter((x) => x.fromStepId === s.id)) visit(steps.find((x) => x.id === t.toStepId));
  };
  visit(steps.find((s) => s.type === 'TRIGGER'));
  for (const s of steps) visit(s);
  return out;
}

export function WorkflowPage({ ctx, params }) {
  const wf = useAsync(() => get(`/workflows/${params.id}`), [params.id]);
  const templates = useAsync(() => get('/templates?limit=100'), [ctx.project.id]);
  const [error, setError] = useState(null);
  if (wf.loading && !wf.data) return html`<${Loading} />`;
  if (wf.error) return html`<${ErrorBox} error=${wf.error} />`;
  const w = wf.data;
  const tpls = templates.data ? templates.data.data : [];
  const update = async (body) => {
    setError(null);
    try { await patch(`/workflows/${w.id}`, body); wf.reload(); } catch (err) { setError(err); }
  };
  return html`<div>
    <${PageHeader} title=${w.name}>
      ${w.enabled ? html`<${Badge} kind="ok">Enabled<//>` : html`<${Badge}>Disabled<//>`}
      <button type="button" class=${w.enabled ? '' : 'primary'} onClick=${() => update({ enabled: !w.enabled })}>${w.enabled ? 'Disable' : 'Enable'}</button>
      <${Confirm} label="Delete workflow" danger question="Delete this workflow?" onConfirm=${async () => { try { await del(`/workflows/${w.id}`); navigate('/app/workflows'); } catch (e) { setError(e); } }} />
    <//>
    <p><${Link} href="/app/workflows">← Workflows<//></p>
    <${ErrorBox} error=${error} />
    <section class="card row">
      <span>Starts when <code>${(w.triggerConfig || {}).eventName}</code> happens to a contact.</span>
      <label class="check"><input type="checkbox" checked=${w.allowReentry} onChange=${(e) => update({ allowReentry: e.target.checked })} /> A contact may run it again</label>
    </section>
    <h2>Steps</h2>
    <ol class="steps">${order(w).map((s) => html`<${StepCard} key=${s.id + s.updatedAt} wf=${w} step=${s} templates=${tpls} onChange=${wf.reload} />`)}</ol>
    <${Connect} wf=${w} onDone=${wf.reload} />
    <${AddStep} wf=${w} templates=${tpls} onDone=${wf.reload} />
    <${Executions} wf=${w} />
  </div>`;
}

function Executions({ wf }) {
  const [status, setStatus] = useState('');
  const [tick, setTick] = useState(0);
  const [open, setOpen] = useState(null);
  const [email, setEmail] = useState('');
  const [error, setError] = useState(null);
  const list = useAsync(() => get(`/workflows/${wf.id}/executions` + qs({ limit: 50, status })), [wf.id, status, tick, wf.enabled]);
  const detail = useAsync(() => (open ? get(`/workflows/${wf.id}/executions/${open}`) : Promise.resolve(null)), [open, tick]);
  useEffect(() => {
    // New executions come from events: an enabled workflow is watched.
    const active = list.data && list.data.data.some((x) => x.status === 'RUNNING' || x.status === 'WAITING');
    if (!list.data || (!active && !wf.enabled)) return undefined;
    const t = setTimeout(() => setTick(tick + 1), active ? 1500 : 3000);
    return () => clearTimeout(t);
  }, [list.data]);
  const act = async (fn) => { setError(null); try { await fn(); setTick(tick + 1); } catch (e) { setError(e); } };
  const start = (e) => {
    e.preventDefault();
    act(async () => {
      const found = await get('/contacts' + qs({ search: email.trim(), limit: 5 }));
      const c = found.data.find((x) => x.email === email.trim().toLowerCase()) || found.data[0];
      if (!c) throw Object.assign(new Error('No contact with that email'), { fields: { contactId: 'No contact with that email' } });
      await post(`/workflows/${wf.id}/executions`, { contactId: c.id });
      setEmail('');
    });
  };
  const rows = list.data ? list.data.data : [];
  return html`<section class="card" aria-labelledby="exec-h">
    <div class="row"><h2 id="exec-h">Executions</h2><span class="spacer"></span>
      <${Confirm} label="Cancel all" danger question="Cancel every running and waiting execution?" onConfirm=${() => act(() => post(`/workflows/${wf.id}/executions/cancel-all`))} /></div>
    <div class="toolbar">
      <${Field} label="Status" name="execStatus">${(id) => html`<select id=${id} value=${status} onChange=${(e) => setStatus(e.target.value)}>
        <option value="">All</option>${Object.keys(statusKind).map((s) => html`<option>${s}</option>`)}</select>`}<//>
      <form class="inline-form" onSubmit=${start}>
        <${Field} label="Start for a contact (email)" name="startEmail" type="email" value=${email} onInput=${(e) => setEmail(e.target.value)} errors=${error && error.fields} />
        <button type="submit">Start</button>
      </form>
    </div>
    <${FormError} error=${error} shown=${['contactId']} />
    ${rows.length ? html`<div class="table-wrap"><table class="list"><thead><tr><th>Contact</th><th>Status</th><th>Step</th><th>Started</th><th>Finished</th><th><span class="sr-only">Actions</span></th></tr></thead><tbody>
      ${rows.map((x) => html`<tr key=${x.id}>
        <td>${x.contact ? x.contact.email : x.contactId}</td><td><${Badge} kind=${statusKind[x.status]}>${x.status}<//></td>
        <td>${x.currentStep ? x.currentStep.name : '—'}</td><td>${fmtDate(x.startedAt)}</td><td>${fmtDate(x.completedAt)}</td>
        <td><button type="button" class="small" onClick=${() => setOpen(open === x.id ? null : x.id)}>${open === x.id ? 'Hide steps' : 'Steps'}</button>
          ${x.status === 'RUNNING' || x.status === 'WAITING' ? html` <button type="button" class="small danger" onClick=${() => act(() => del(`/workflows/${wf.id}/executions/${x.id}`))}>Cancel</button>` : null}</td>
      </tr>`)}
    </tbody></table></div>` : list.data ? html`<p class="muted">No executions${status ? ' with this status' : ''}.</p>` : html`<${Loading} />`}
    ${detail.data ? html`<div class="card"><h3>Step history</h3>${detail.data.exitReason ? html`<p class="muted">Reason: ${detail.data.exitReason}</p>` : null}
      <ol>${(detail.data.stepExecutions || []).map((se) => html`<li><${Badge} kind=${statusKind[se.status] || ''}>${se.status}<//> ${se.step ? `${se.step.name} (${se.step.type})` : se.stepId}
        <span class="muted">${fmtDate(se.startedAt)}${se.executeAfter ? ` · resumes ${fmtDate(se.executeAfter)}` : ''}</span>
        ${se.error ? html`<div class="error">${se.error}</div>` : null}</li>`)}</ol></div>` : null}
  </section>`;
}
