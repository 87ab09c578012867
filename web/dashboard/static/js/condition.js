// The condition builder: a tree of AND/OR groups, each with filters and an
// optional nested tree, over every field, operator and unit Herald knows
// (docs/decisions.md, "Conditions"). It edits the API's own JSON shape.
import { html, useState, useEffect } from './lib.js';
import { get, post } from './api.js';
import { useDebounced, fmtNum, useId } from './ui.js';

const kinds = [
  ['email', 'Email address'],
  ['subscribed', 'Subscribed'],
  ['createdAt', 'Created at'],
  ['updatedAt', 'Updated at'],
  ['data', 'Contact data'],
  ['event', 'Tracked event'],
  ['emailActivity', 'Email activity'],
  ['segment', 'Segment membership'],
];
const activities = ['sent', 'delivery', 'open', 'click', 'bounce', 'complaint'];
const ops = {
  email: ['equals', 'notEquals', 'contains', 'notContains'],
  subscribed: ['equals', 'notEquals'],
  date: ['within', 'olderThan', 'greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual'],
  data: ['equals', 'notEquals', 'contains', 'notContains', 'greaterThan', 'lessThan', 'greaterThanOrEqual', 'lessThanOrEqual', 'exists', 'notExists', 'within', 'olderThan'],
  event: ['triggered', 'notTriggered', 'triggeredWithin', 'notTriggeredWithin', 'triggeredOlderThan'],
  segment: ['memberOfSegment', 'notMemberOfSegment'],
};
const opLabels = {
  equals: 'equals', notEquals: 'does not equal', contains: 'contains', notContains: 'does not contain',
  greaterThan: 'is greater than / after', lessThan: 'is less than / before', greaterThanOrEqual: 'is at least', lessThanOrEqual: 'is at most',
  exists: 'is set', notExists: 'is not set', within: 'is within the last', olderThan: 'is older than',
  triggered: 'has happened', notTriggered: 'has never happened', triggeredWithin: 'happened within the last',
  notTriggeredWithin: 'has not happened within the last', triggeredOlderThan: 'last happened more than',
  memberOfSegment: 'is a member', notMemberOfSegment: 'is not a member',
};
const windowOps = ['within', 'olderThan', 'triggeredWithin', 'notTriggeredWithin', 'triggeredOlderThan'];
const noValueOps = ['exists', 'notExists', 'triggered', 'notTriggered', 'memberOfSegment', 'notMemberOfSegment'];
const units = ['seconds', 'minutes', 'hours', 'days'];

// kindOf reads a filter's field back into the builder's parts.
function kindOf(field) {
  if (['email', 'subscribed', 'createdAt', 'updatedAt'].includes(field)) return { kind: field, key: '' };
  const [p, ...rest] = String(field || '').split('.');
  const key = rest.join('.');
  if (p === 'data') return { kind: 'data', key };
  if (p === 'event') return { kind: 'event', key };
  if (p === 'email') return { kind: 'emailActivity', key };
  if (p === 'segment') return { kind: 'segment', key };
  return { kind: 'email', key: '' };
}
function fieldOf(kind, key) {
  switch (kind) {
    case 'data': return 'data.' + key;
    case 'event': return 'event.' + key;
    case 'emailActivity': return 'email.' + (key || 'open');
    case 'segment': return 'segment.' + key;
    default: return kind;
  }
}
const opsFor = (kind) => ops[kind === 'createdAt' || kind === 'updatedAt' ? 'date' : kind === 'emailActivity' ? 'event' : kind];

export const newFilter = () => ({ field: 'email', operator: 'contains', value: '' });
export const newTree = () => ({ logic: 'AND', groups: [{ filters: [newFilter()] }] });

// A value input keeps the type the user chose: text, number, true/false,
// or a date.
function ValueInput({ f, kind, onChange, label }) {
  const id = useId('val');
  if (kind === 'subscribed') {
    return html`<label class="sr-only" for=${id}>${label}</label><select id=${id} value=${String(f.value === true)} onChange=${(e) => onChange(e.target.value === 'true')}><option value="true">true</option><option value="false">false</option></select>`;
  }
  if (kind === 'createdAt' || kind === 'updatedAt') {
    const v = typeof f.value === 'string' && f.value ? f.value.slice(0, 16) : '';
    return html`<label class="sr-only" for=${id}>${label}</label><input id=${id} type="datetime-local" value=${v} onInput=${(e) => onChange(e.target.value ? new Date(e.target.value).toISOString() : '')} />`;
  }
  const t = typeof f.value === 'number' ? 'number' : typeof f.value === 'boolean' ? 'boolean' : 'text';
  const setType = (nt) => onChange(nt === 'number' ? Number(f.value) || 0 : nt === 'boolean' ? f.value === 'true' || f.value === true : String(f.value ?? ''));
  return html`<span class="value-pair">
    ${kind === 'data' ? html`<label class="sr-only" for=${id + 't'}>${label} type</label><select id=${id + 't'} class="small" value=${t} onChange=${(e) => setType(e.target.value)}><option value="text">text</option><option value="number">number</option><option value="boolean">boolean</option></select>` : null}
    <label class="sr-only" for=${id}>${label}</label>
    ${t === 'boolean'
      ? html`<select id=${id} value=${String(f.value)} onChange=${(e) => onChange(e.target.value === 'true')}><option>true</option><option>false</option></select>`
      : html`<input id=${id} type=${t === 'number' ? 'number' : 'text'} step="any" value=${f.value ?? ''} onInput=${(e) => onChange(t === 'number' ? Number(e.target.value) : e.target.value)} />`}
  </span>`;
}

function FilterRow({ f, path, onChange, onRemove, meta, errors }) {
  const { kind, key } = kindOf(f.field);
  const id = useId('flt');
  const setKind = (k) => {
    const o = opsFor(k)[0];
    onChange({ field: fieldOf(k, k === 'segment' ? (meta.segments[0] || {}).id || '' : ''), operator: o, value: k === 'subscribed' ? true : noValueOps.includes(o) ? null : windowOps.includes(o) ? 7 : '', ...(windowOps.includes(o) ? { unit: 'days' } : {}) });
  };
  const setOp = (o) => {
    const n = { field: f.field, operator: o };
    if (windowOps.includes(o)) { n.value = typeof f.value === 'number' ? f.value : 7; n.unit = f.unit || 'days'; }
    else if (!noValueOps.includes(o)) n.value = windowOps.includes(f.operator) ? '' : f.value;
    onChange(n);
  };
  const op = f.operator;
  const err = Object.entries(errors || {}).filter(([p]) => p.startsWith(path)).map(([, m]) => m);
  return html`<div class=${'filter' + (err.length ? ' has-error' : '')} role="group" aria-label="Filter">
    <label class="sr-only" for=${id + 'k'}>Field</label>
    <select id=${id + 'k'} value=${kind} onChange=${(e) => setKind(e.target.value)}>${kinds.map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select>
    ${kind === 'data' ? html`<label class="sr-only" for=${id + 'd'}>Data key</label><input id=${id + 'd'} class="key" placeholder="key" list="cb-data-keys" value=${key} onInput=${(e) => onChange({ ...f, field: 'data.' + e.target.value })} />` : null}
    ${kind === 'event' ? html`<label class="sr-only" for=${id + 'e'}>Event name</label><input id=${id + 'e'} class="key" placeholder="event name" list="cb-event-names" value=${key} onInput=${(e) => onChange({ ...f, field: 'event.' + e.target.value })} />` : null}
    ${kind === 'emailActivity' ? html`<label class="sr-only" for=${id + 'a'}>Email activity</label><select id=${id + 'a'} value=${key} onChange=${(e) => onChange({ ...f, field: 'email.' + e.target.value })}>${activities.map((a) => html`<option value=${a}>${a}</option>`)}</select>` : null}
    ${kind === 'segment' ? html`<label class="sr-only" for=${id + 's'}>Segment</label><select id=${id + 's'} value=${key} onChange=${(e) => onChange({ ...f, field: 'segment.' + e.target.value })}>
      <option value="">Choose a segment</option>${meta.segments.filter((s) => s.id !== meta.self).map((s) => html`<option value=${s.id}>${s.name}</option>`)}</select>` : null}
    <label class="sr-only" for=${id + 'o'}>Operator</label>
    <select id=${id + 'o'} value=${op} onChange=${(e) => setOp(e.target.value)}>${opsFor(kind).map((o) => html`<option value=${o}>${opLabels[o]}</option>`)}</select>
    ${windowOps.includes(op) ? html`<label class="sr-only" for=${id + 'n'}>Amount</label><input id=${id + 'n'} type="number" min="0" class="num" value=${f.value} onInput=${(e) => onChange({ ...f, value: Number(e.target.value) })} />
      <label class="sr-only" for=${id + 'u'}>Unit</label><select id=${id + 'u'} value=${f.unit || 'days'} onChange=${(e) => onChange({ ...f, unit: e.target.value })}>${units.map((u) => html`<option>${u}</option>`)}</select>
      ${op === 'triggeredOlderThan' ? html`<span class="muted">ago</span>` : null}`
      : noValueOps.includes(op) ? null : html`<${ValueInput} f=${f} kind=${kind} label="Value" onChange=${(v) => onChange({ ...f, value: v })} />`}
    <button type="button" class="small" aria-label="Remove filter" onClick=${onRemove}>✕</button>
    ${err.length ? html`<small class="error" role="alert">${err.join('; ')}</small>` : null}
  </div>`;
}

function Tree({ tree, onChange, path, depth, meta, errors, onRemove }) {
  const setGroup = (i, g) => onChange({ ...tree, groups: tree.groups.map((x, j) => (j === i ? g : x)) });
  const removeGroup = (i) => onChange({ ...tree, groups: tree.groups.filter((_, j) => j !== i) });
  const id = useId('logic');
  return html`<div class=${'tree depth' + depth} role="group" aria-label=${depth ? 'Nested group' : 'Conditions'}>
    <div class="row">
      <label for=${id}>${depth ? 'Nested: match' : 'Match'}</label>
      <select id=${id} value=${tree.logic} onChange=${(e) => onChange({ ...tree, logic: e.target.value })}>
        <option value="AND">all groups (AND)</option><option value="OR">any group (OR)</option>
      </select>
      ${onRemove ? html`<button type="button" class="small" onClick=${onRemove}>Remove nested group</button>` : null}
    </div>
    ${tree.groups.map((g, i) => html`<div class="group" key=${i}>
      <div class="group-head"><span class="muted">${i ? tree.logic : 'Group'} · all of these</span>
        ${tree.groups.length > 1 ? html`<button type="button" class="small" onClick=${() => removeGroup(i)}>Remove group</button>` : null}</div>
      ${(g.filters || []).map((f, k) => html`<${FilterRow} key=${k} f=${f} path=${`${path}.groups[${i}].filters[${k}]`} meta=${meta} errors=${errors}
        onChange=${(nf) => setGroup(i, { ...g, filters: g.filters.map((x, j) => (j === k ? nf : x)) })}
        onRemove=${() => setGroup(i, { ...g, filters: g.filters.filter((_, j) => j !== k) })} />`)}
      ${g.conditions ? html`<${Tree} tree=${g.conditions} path=${`${path}.groups[${i}].conditions`} depth=${depth + 1} meta=${meta} errors=${errors}
        onChange=${(c) => setGroup(i, { ...g, conditions: c })} onRemove=${() => { const { conditions, ...rest } = g; setGroup(i, rest); }} />` : null}
      <div class="row">
        <button type="button" class="small" onClick=${() => setGroup(i, { ...g, filters: [...(g.filters || []), newFilter()] })}>Add filter</button>
        ${!g.conditions && depth < 4 ? html`<button type="button" class="small" onClick=${() => setGroup(i, { ...g, conditions: { logic: 'OR', groups: [{ filters: [newFilter()] }] } })}>Add nested group</button>` : null}
      </div>
    </div>`)}
    <button type="button" class="small" onClick=${() => onChange({ ...tree, groups: [...tree.groups, { filters: [newFilter()] }] })}>Add group</button>
  </div>`;
}

// complete tells a tree the API can read from one still being typed: a
// data key, event name or segment not chosen yet is not sent for counting.
export function complete(tree) {
  return (tree.groups || []).every((g) => (g.filters || []).every((f) => {
    const { kind, key } = kindOf(f.field);
    if (['data', 'event', 'segment'].includes(kind) && key.trim() === '') return false;
    // A value still empty is a filter being written, not one to count.
    return noValueOps.includes(f.operator) || (f.value !== '' && f.value !== undefined && !(typeof f.value === 'number' && isNaN(f.value)));
  }) && (!g.conditions || complete(g.conditions)));
}

// ConditionBuilder edits a tree and shows how many contacts it selects
// now (POST /audience/count), as the user edits it.
export function ConditionBuilder({ value, onChange, meta, errors, path = 'condition', countLabel = 'contacts match' }) {
  const [count, setCount] = useState(null);
  const debounced = useDebounced(value, 350);
  useEffect(() => {
    let live = true;
    if (!complete(debounced)) return setCount({ incomplete: true });
    post('/audience/count', { audienceType: 'FILTERED', condition: debounced }).then(
      (r) => live && setCount(r),
      (e) => live && setCount({ error: e }),
    );
    return () => { live = false; };
  }, [JSON.stringify(debounced)]);
  return html`<div class="builder">
    <datalist id="cb-data-keys">${meta.dataKeys.map((k) => html`<option value=${k} />`)}</datalist>
    <datalist id="cb-event-names">${meta.eventNames.map((k) => html`<option value=${k} />`)}</datalist>
    <${Tree} tree=${value} onChange=${onChange} path=${path} depth=${0} meta=${meta} errors=${errors} />
    <p class="live-count" aria-live="polite">
      ${count && count.error ? html`<span class="error">${count.error.message}${Object.values(count.error.fields || {}).length ? ': ' + Object.values(count.error.fields).join('; ') : ''}</span>`
        : count && count.count !== undefined ? html`<strong data-count=${count.count}>${fmtNum(count.count)}</strong> ${countLabel} (${fmtNum(count.subscribed)} subscribed)` : count && count.incomplete ? 'Finish the filters to see the count.' : 'Counting…'}
    </p>
  </div>`;
}

// sampleDataKeys suggests data keys from the newest contacts: one cheap
// page, where /contacts/fields reads every contact (seconds at 100,000).
export async function sampleDataKeys() {
  try {
    const page = await get('/contacts?limit=100');
    const keys = new Set();
    for (const c of page.data) for (const k of Object.keys(c.data || {})) keys.add(k);
    return [...keys].sort();
  } catch {
    return [];
  }
}

// useConditionMeta loads what the builder offers: segments, data keys and
// event names of the project.
export function useConditionMeta(projectId, self) {
  const [meta, setMeta] = useState({ segments: [], dataKeys: [], eventNames: [], self });
  useEffect(() => {
    Promise.all([
      get('/segments').catch(() => []),
      sampleDataKeys(),
      get('/events/names').catch(() => []),
    ]).then(([segments, dataKeys, eventNames]) => setMeta({ segments, self, eventNames, dataKeys }));
  }, [projectId, self]);
  return meta;
}
