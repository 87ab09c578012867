// Shared pieces of every page: navigation, form fields with the API's
// field errors beside them, dates in the viewer's time zone, copy buttons.
import { html, useState, useEffect, useRef } from './lib.js';

export const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

export function navigate(to, replace) {
  if (to === location.pathname + location.search) return;
  history[replace ? 'replaceState' : 'pushState'](null, '', to);
  dispatchEvent(new Event('herald:navigate'));
}

// Link is an anchor the router handles without reloading the page; a
// modified click (new tab) stays the browser's.
export function Link({ href, children, ...rest }) {
  const click = (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return html`<a href=${href} onClick=${click} ...${rest}>${children}</a>`;
}

const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export function fmtDate(s) {
  if (!s) return '—';
  const d = new Date(s);
  return isNaN(d) ? String(s) : dateFmt.format(d);
}
export const fmtNum = (n) => (n === null || n === undefined ? '—' : Number(n).toLocaleString());
export const fmtPct = (n) => (n === null || n === undefined ? '—' : `${Number(n).toFixed(1)}%`);

let nextId = 0;
export function useId(prefix) {
  const ref = useRef(null);
  if (ref.current === null) ref.current = `${prefix || 'f'}-${++nextId}`;
  return ref.current;
}

// Field is a labelled input with its error from the API below it.
export function Field({ label, name, errors, hint, children, type = 'text', value, onInput, ...rest }) {
  const id = useId(name);
  const err = errors && errors[name];
  const described = err ? id + '-err' : hint ? id + '-hint' : undefined;
  const control = children
    ? children(id, described)
    : type === 'textarea'
      ? html`<textarea id=${id} name=${name} value=${value} onInput=${onInput} aria-invalid=${err ? 'true' : undefined} aria-describedby=${described} ...${rest}></textarea>`
      : html`<input id=${id} name=${name} type=${type} value=${value} onInput=${onInput} aria-invalid=${err ? 'true' : undefined} aria-describedby=${described} ...${rest} />`;
  return html`<div class=${'field' + (err ? ' has-error' : '')}>
    <label for=${id}>${label}</label>
    ${control}
    ${hint && !err ? html`<small id=${id + '-hint'} class="hint">${hint}</small>` : null}
    ${err ? html`<small id=${id + '-err'} class="error" role="alert">${err}</small>` : null}
  </div>`;
}

// FormError shows an error no field claims, and the ones at paths that no
// field on the page shows.
export function FormError({ error, shown = [] }) {
  if (!error) return null;
  const rest = Object.entries(error.fields || {}).filter(([f]) => !shown.includes(f));
  return html`<div class="alert error" role="alert">
    <strong>${error.message}</strong>
    ${error.suggestion ? html`<div>${error.suggestion}</div>` : null}
    ${rest.length ? html`<ul>${rest.map(([f, m]) => html`<li><code>${f}</code>: ${m}</li>`)}</ul>` : null}
  </div>`;
}

export function CopyButton({ text, label = 'Copy' }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Clipboard refused (no permission, plain http): select a copy instead.
      const t = document.createElement('textarea');
      t.value = text;
      document.body.appendChild(t);
      t.select();
      document.execCommand('copy');
      t.remove();
    }
    setDone(true);
    setTimeout(() => setDone(false), 1500);
  };
  return html`<button type="button" class="small" onClick=${copy} aria-label=${`${label}: ${text.slice(0, 40)}`}>${done ? 'Copied' : label}</button>`;
}

export function Badge({ kind, children }) {
  return html`<span class=${'badge ' + (kind || '')}>${children}</span>`;
}

export function Progress({ value, max = 100, label }) {
  const pct = max ? Math.min(100, Math.round((value / max) * 100)) : 0;
  return html`<div class="progress-wrap">
    <progress value=${value} max=${max} aria-label=${label}>${pct}%</progress>
    <span class="progress-text">${pct}%</span>
  </div>`;
}

export function Loading() {
  return html`<p class="muted" aria-live="polite">Loading…</p>`;
}

// useAsync loads data for a page and reloads when deps change.
export function useAsync(fn, deps) {
  const [state, setState] = useState({ loading: true, data: null, error: null });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fn().then(
      (data) => live && setState({ loading: false, data, error: null }),
      (error) => live && setState({ loading: false, data: null, error }),
    );
    return () => { live = false; };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1), set: (data) => setState({ loading: false, data, error: null }) };
}

export function PageHeader({ title, children }) {
  useEffect(() => { document.title = `${title} · Herald`; }, [title]);
  return html`<header class="page-header"><h1 tabindex="-1" id="page-title">${title}</h1><div class="actions">${children}</div></header>`;
}

export function ErrorBox({ error }) {
  if (!error) return null;
  return html`<div class="alert error" role="alert">${error.message}</div>`;
}

export function useDebounced(value, ms = 300) {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value]);
  return v;
}

// Confirm is an inline confirmation: the question, then the action.
export function Confirm({ label, question, onConfirm, danger, disabled }) {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const yes = useRef(null);
  // The keyboard follows the question: focus moves to its answer.
  useEffect(() => { if (open && yes.current) yes.current.focus(); }, [open]);
  if (!open) return html`<button type="button" class=${danger ? 'danger' : ''} disabled=${disabled} onClick=${() => setOpen(true)}>${label}</button>`;
  const go = async () => {
    setBusy(true);
    try { await onConfirm(); } finally { setBusy(false); setOpen(false); }
  };
  return html`<div class="confirm" role="alertdialog" aria-label=${label}>
    <p>${question}</p>
    <button type="button" ref=${yes} class=${danger ? 'danger' : 'primary'} disabled=${busy} onClick=${go}>Yes, ${label.toLowerCase()}</button>
    <button type="button" onClick=${() => setOpen(false)}>Cancel</button>
  </div>`;
}
