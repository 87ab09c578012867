// Sender domains: add one, the DNS records to publish with copy buttons,
// each record's status, and "Check now".
import { html, useState } from '../lib.js';
import { get, post, del } from '../api.js';
import { PageHeader, useAsync, Loading, ErrorBox, Field, FormError, CopyButton, Badge, fmtDate, Confirm } from '../ui.js';

const statusKind = { verified: 'ok', pending: 'warn', failed: 'bad' };

function DomainCard({ domain, onChange, onDelete, sandbox }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const check = async () => {
    setBusy(true);
    setError(null);
    try {
      onChange(await get(`/domains/${domain.id}/verify`));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return html`<section class="card domain" aria-labelledby=${'d-' + domain.id}>
    <header class="row">
      <h2 id=${'d-' + domain.id}>${domain.domain}</h2>
      <${Badge} kind=${statusKind[domain.status] || ''}>${domain.verified ? 'Verified' : 'Pending'}<//>
      <span class="muted">Last checked ${fmtDate(domain.lastCheckedAt)}</span>
      <span class="spacer"></span>
      <button type="button" onClick=${check} disabled=${busy}>${busy ? 'Checking…' : 'Check now'}</button>
      <${Confirm} label="Remove" danger question=${`Remove ${domain.domain}? Mail from it can no longer be sent.`} onConfirm=${onDelete} />
    </header>
    <${ErrorBox} error=${error} />
    ${sandbox
      ? html`<p class="muted">In the sandbox, a domain is verified without DNS: these are the records you would publish for real.</p>`
      : html`<p class="muted">Publish these records at your DNS provider, then check. Only required records decide verification.</p>`}
    <div class="table-wrap"><table class="records">
      <thead><tr><th>Type</th><th>Name</th><th>Value</th><th>Purpose</th><th>Status</th></tr></thead>
      <tbody>
        ${(domain.records || []).map((r) => html`<tr>
          <td>${r.type}</td>
          <td><code class="wrap">${r.name}</code> <${CopyButton} text=${r.name} label="Copy name" /></td>
          <td><code class="wrap value">${r.value}</code> <${CopyButton} text=${r.value} label="Copy value" /></td>
          <td>${r.purpose}${r.required ? '' : html` <span class="muted">(optional)</span>`}</td>
          <td><${Badge} kind=${statusKind[r.status] || ''}>${r.status}<//></td>
        </tr>`)}
      </tbody>
    </table></div>
  </section>`;
}

export function DomainsPage({ ctx }) {
  const pid = ctx.project.id;
  const list = useAsync(() => get(`/domains/project/${pid}`), [pid]);
  const [name, setName] = useState('');
  const [error, setError] = useState(null);
  const add = async (e) => {
    e.preventDefault();
    setError(null);
    try {
      const d = await post('/domains', { domain: name.trim() });
      setName('');
      list.set([d, ...(list.data || []).filter((x) => x.id !== d.id)]);
    } catch (err) {
      setError(err);
    }
  };
  const replace = (d) => list.set(list.data.map((x) => (x.id === d.id ? d : x)));
  const remove = async (d) => {
    await del(`/domains/${d.id}`);
    list.set(list.data.filter((x) => x.id !== d.id));
  };
  return html`<div>
    <${PageHeader} title="Domains" />
    <form class="card inline-form" onSubmit=${add}>
      <${Field} label="Sender domain" name="domain" value=${name} onInput=${(e) => setName(e.target.value)} placeholder="mail.example.com" errors=${error && error.fields} required />
      <button type="submit" class="primary">Add domain</button>
      <${FormError} error=${error} shown=${['domain']} />
    </form>
    ${list.loading && !list.data ? html`<${Loading} />` : null}
    <${ErrorBox} error=${list.error} />
    ${list.data && !list.data.length ? html`<p class="muted">No sender domain yet. Add the domain your emails come from.</p>` : null}
    ${(list.data || []).map((d) => html`<${DomainCard} key=${d.id} domain=${d} sandbox=${!!ctx.config.sandbox} onChange=${replace} onDelete=${() => remove(d)} />`)}
  </div>`;
}
