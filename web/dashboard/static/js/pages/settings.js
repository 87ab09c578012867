// Settings: name and tracking, API keys, members and roles, billing limits
// with usage, security health. A MEMBER sees what they may read, never a
// control they may not use (the API refuses those writes with 403 anyway).
import { html, useState } from '../lib.js';
import { get, post, patch, put, del } from '../api.js';
import { PageHeader, useAsync, Loading, ErrorBox, Field, FormError, CopyButton, Confirm, Badge, fmtDate, fmtNum, navigate } from '../ui.js';

export function SettingsPage({ ctx }) {
  const p = ctx.project;
  const owner = p.role === 'OWNER';
  return html`<div>
    <${PageHeader} title="Settings" />
    <p class="muted">Project <strong>${p.name}</strong> · your role: <${Badge}>${p.role}<//></p>
    ${ctx.canAdmin ? html`<${General} ctx=${ctx} />` : html`<p class="card muted" role="note">As a member you can work with this project's contacts, templates, campaigns and segments. Its settings, keys and members are changed by its admins and owners.</p>`}
    ${ctx.canAdmin ? html`<${Keys} ctx=${ctx} />` : null}
    <${Members} ctx=${ctx} />
    <${Limits} ctx=${ctx} />
    <${Security} ctx=${ctx} />
    ${owner ? html`<${Danger} ctx=${ctx} />` : null}
  </div>`;
}

function General({ ctx }) {
  const p = ctx.project;
  const [form, setForm] = useState({ name: p.name, tracking: p.tracking || 'ENABLED', language: p.language || 'en' });
  const [error, setError] = useState(null);
  const [saved, setSaved] = useState(false);
  const save = async (e) => {
    e.preventDefault();
    setError(null);
    setSaved(false);
    try {
      await patch(`/users/@me/projects/${p.id}`, form);
      setSaved(true);
      await ctx.reload(p.id);
    } catch (err) {
      setError(err);
    }
  };
  const errs = error ? error.fields : {};
  return html`<form class="card" onSubmit=${save} aria-labelledby="gen-h">
    <h2 id="gen-h">General</h2>
    <div class="grid2">
      <${Field} label="Project name" name="name" value=${form.name} onInput=${(e) => setForm({ ...form, name: e.target.value })} errors=${errs} required maxlength="100" />
      <${Field} label="Language" name="language" value=${form.language} onInput=${(e) => setForm({ ...form, language: e.target.value })} errors=${errs} hint="xx or xx-XX, for the subscription pages." />
    </div>
    <${Field} label="Open and click tracking" name="tracking" errors=${errs}>${(id) => html`<select id=${id} value=${form.tracking} onChange=${(e) => setForm({ ...form, tracking: e.target.value })}>
      <option value="ENABLED">On for every email</option><option value="MARKETING_ONLY">Marketing emails only</option><option value="DISABLED">Off</option></select>`}<//>
    <${FormError} error=${error} shown=${['name', 'language', 'tracking']} />
    <div class="row"><button type="submit" class="primary">Save</button>${saved ? html`<span role="status" class="ok-text">Saved</span>` : null}</div>
  </form>`;
}

function KeyRow({ label, value, secret }) {
  const [reveal, setShown] = useState(false);
  const shown = !secret || reveal;
  return html`<div class="keyrow">
    <span class="label">${label}</span>
    <code class="key" data-key=${label.toLowerCase().replace(/\W+/g, '-')}>${shown ? value : value.slice(0, 6) + '•'.repeat(20)}</code>
    ${secret ? html`<button type="button" class="small" onClick=${() => setShown(!reveal)}>${shown ? 'Hide' : 'Reveal'}</button>` : null}
    <${CopyButton} text=${value} label=${'Copy ' + label.toLowerCase()} />
  </div>`;
}

function Keys({ ctx }) {
  const p = ctx.project;
  const [error, setError] = useState(null);
  const [fresh, setFresh] = useState(false);
  const regenerate = async () => {
    setError(null);
    try {
      const np = await post(`/users/@me/projects/${p.id}/regenerate-keys`);
      await ctx.reload(np.id || p.id);
      setFresh(true);
    } catch (e) {
      setError(e);
    }
  };
  return html`<section class="card" aria-labelledby="keys-h">
    <h2 id="keys-h">API keys</h2>
    <p class="muted">The public key (<code>pk_</code>) may only track events, safe in a browser. The secret key (<code>sk_</code>) does everything else: keep it on your server.</p>
    ${fresh ? html`<p role="status" class="alert ok">New keys made. The old ones no longer work: update your integrations now.</p>` : null}
    <${KeyRow} key=${p.public} label="Public key" value=${p.public || ''} />
    ${p.secret ? html`<${KeyRow} key=${p.secret} label="Secret key" value=${p.secret} secret=${!fresh} />` : null}
    <${ErrorBox} error=${error} />
    <${Confirm} label="Regenerate keys" danger question="Regenerate both keys? The old keys stop working at once, for every integration that uses them." onConfirm=${regenerate} />
  </section>`;
}

const roles = ['MEMBER', 'ADMIN', 'OWNER'];

function Members({ ctx }) {
  const p = ctx.project;
  const list = useAsync(() => get(`/projects/${p.id}/members`), [p.id]);
  const invites = useAsync(() => get(`/projects/${p.id}/invitations`), [p.id]);
  const [form, setForm] = useState({ email: '', role: 'MEMBER' });
  const [error, setError] = useState(null);
  const [invited, setInvited] = useState(null); // the last invitation made
  const owner = p.role === 'OWNER';
  const act = async (fn) => {
    setError(null);
    try { await fn(); list.reload(); invites.reload(); } catch (e) { setError(e); }
  };
  const add = (e) => {
    e.preventDefault();
    setInvited(null);
    act(async () => {
      const added = await post(`/projects/${p.id}/members`, { email: form.email.trim(), role: form.role });
      if (added.invited) setInvited(added);
      setForm({ email: '', role: 'MEMBER' });
    });
  };
  // An ADMIN may not grant, change or remove OWNER.
  const may = (m) => ctx.canAdmin && m.userId !== ctx.user.id && (owner || m.role !== 'OWNER');
  const choices = owner ? roles : roles.filter((r) => r !== 'OWNER');
  const open = invites.data || [];
  return html`<section class="card" aria-labelledby="mem-h">
    <h2 id="mem-h">Members</h2>
    ${list.data ? html`<div class="table-wrap"><table class="list"><thead><tr><th>Email</th><th>Role</th><th>Since</th>${ctx.canAdmin ? html`<th><span class="sr-only">Actions</span></th>` : null}</tr></thead><tbody>
      ${list.data.map((m) => html`<tr key=${m.userId}><td>${m.email}${m.userId === ctx.user.id ? html` <span class="muted">(you)</span>` : null}</td>
        <td>${may(m) ? html`<select aria-label=${'Role of ' + m.email} value=${m.role} onChange=${(e) => act(() => patch(`/projects/${p.id}/members/${m.userId}`, { role: e.target.value }))}>
          ${choices.map((r) => html`<option>${r}</option>`)}</select>` : m.role}</td>
        <td>${fmtDate(m.createdAt)}</td>
        ${ctx.canAdmin ? html`<td>${may(m) ? html`<${Confirm} label="Remove" danger question=${`Remove ${m.email} from this project?`} onConfirm=${() => act(() => del(`/projects/${p.id}/members/${m.userId}`))} />` : null}</td>` : null}
      </tr>`)}
      ${open.map((i) => html`<tr key=${'inv-' + i.email} class="invitation"><td>${i.email} <${Badge} kind="info">Invited<//></td><td>${i.role}</td>
        <td><span class="muted">until ${fmtDate(i.expiresAt)}</span></td>
        ${ctx.canAdmin ? html`<td>${owner || i.role !== 'OWNER' ? html`<${Confirm} label="Withdraw" danger question=${`Withdraw the invitation of ${i.email}?`} onConfirm=${() => act(() => del(`/projects/${p.id}/invitations/${encodeURIComponent(i.email)}`))} />` : null}</td>` : null}
      </tr>`)}
    </tbody></table></div>` : list.error ? html`<${ErrorBox} error=${list.error} />` : html`<${Loading} />`}
    ${invited ? html`<div class="alert ok" role="status">${invited.mailed
      ? html`Invitation mailed to <strong>${invited.email}</strong>: the link in it makes their account, valid 7 days.`
      : html`<div>This server sends no email: give <strong>${invited.email}</strong> this link to make their account (valid 7 days, for that email only).</div>
          <div class="keyrow"><code class="key invite-link">${invited.inviteUrl}</code><${CopyButton} text=${invited.inviteUrl} label="Copy link" /></div>`}</div>` : null}
    ${ctx.canAdmin ? html`<form class="inline-form" onSubmit=${add}>
      <${Field} label="Add a member by email" name="email" type="email" value=${form.email} onInput=${(e) => setForm({ ...form, email: e.target.value })} errors=${error && error.fields} hint="Someone without a Herald account gets an invitation to sign up." required />
      <${Field} label="Role" name="role">${(id) => html`<select id=${id} value=${form.role} onChange=${(e) => setForm({ ...form, role: e.target.value })}>${choices.map((r) => html`<option>${r}</option>`)}</select>`}<//>
      <button type="submit">Add member</button>
    </form>` : null}
    <${FormError} error=${error} shown=${['email', 'role']} />
  </section>`;
}

const limitKeys = [['transactional', 'Transactional (API sends)'], ['campaigns', 'Campaigns'], ['workflows', 'Workflows'], ['inbound', 'Inbound']];

function Limits({ ctx }) {
  const p = ctx.project;
  const lim = useAsync(() => get(`/users/@me/projects/${p.id}/billing-limits`), [p.id]);
  const [edit, setEdit] = useState(null);
  const [error, setError] = useState(null);
  const start = () => { const f = {}; for (const [k] of limitKeys) f[k] = lim.data[k].limit === null ? '' : String(lim.data[k].limit); setEdit(f); };
  const save = async (e) => {
    e.preventDefault();
    setError(null);
    const body = {};
    for (const [k] of limitKeys) body[k] = edit[k].trim() === '' ? null : Number(edit[k]);
    try { lim.set(await put(`/users/@me/projects/${p.id}/billing-limits`, body)); setEdit(null); } catch (err) { setError(err); }
  };
  return html`<section class="card" aria-labelledby="lim-h">
    <h2 id="lim-h">Monthly limits and usage</h2>
    ${lim.error ? html`<${ErrorBox} error=${lim.error} />` : !lim.data ? html`<${Loading} />` : edit ? html`<form onSubmit=${save}>
      <div class="grid2">${limitKeys.map(([k, l]) => html`<${Field} label=${l} name=${k} type="number" min="0" step="1" value=${edit[k]} onInput=${(e) => setEdit({ ...edit, [k]: e.target.value })} errors=${error && error.fields} hint="Empty: no limit." />`)}</div>
      <${FormError} error=${error} shown=${limitKeys.map(([k]) => k)} />
      <button type="submit" class="primary">Save limits</button> <button type="button" onClick=${() => setEdit(null)}>Cancel</button>
    </form>` : html`<div>
      ${limitKeys.map(([k, l]) => { const x = lim.data[k]; return html`<div class="usage">
        <div class="row"><span>${l}</span><span class="spacer"></span><span>${fmtNum(x.usage)} / ${x.limit === null ? 'no limit' : fmtNum(x.limit)}</span>
          ${x.isBlocked ? html`<${Badge} kind="bad">Limit reached<//>` : x.isWarning ? html`<${Badge} kind="warn">Over 80%<//>` : null}</div>
        <div class=${'bar' + (x.isBlocked ? ' bad' : x.isWarning ? ' warn' : '')} role="meter" aria-label=${l} aria-valuemin="0" aria-valuemax="100" aria-valuenow=${Math.min(100, x.percentage)}>
          <span class="fill" style=${{ width: Math.min(100, x.percentage) + "%" }}></span></div>
      </div>`; })}
      ${ctx.canAdmin ? html`<button type="button" onClick=${start}>Change limits</button>` : null}
    </div>`}
  </section>`;
}

const levelKind = { healthy: 'ok', warning: 'warn', critical: 'bad' };

function Security({ ctx }) {
  const sec = useAsync(() => get(`/projects/${ctx.project.id}/security`), [ctx.project.id]);
  if (sec.error) return html`<section class="card"><h2>Security health</h2><${ErrorBox} error=${sec.error} /></section>`;
  if (!sec.data) return html`<section class="card"><h2>Security health</h2><${Loading} /></section>`;
  const { status, levels } = sec.data;
  const rows = [
    ['Bounce rate, 7 days', status.sevenDay.bounceRate, levels.bounce7Day, '5% warning, 10% critical'],
    ['Bounce rate, all time', status.allTime.bounceRate, levels.bounceAllTime, '4% warning, 8% critical'],
    ['Complaint rate, 7 days', status.sevenDay.complaintRate, levels.complaint7Day, '0.075% warning, 0.15% critical'],
    ['Complaint rate, all time', status.allTime.complaintRate, levels.complaintAllTime, '0.03% warning, 0.12% critical'],
  ];
  return html`<section class="card" aria-labelledby="sec-h">
    <h2 id="sec-h">Security health</h2>
    <p>${status.isHealthy ? html`<${Badge} kind="ok">Healthy<//>` : html`<${Badge} kind="bad">Needs attention<//>`}
      ${sec.data.isDisabled ? html` <${Badge} kind="bad">Project disabled<//>` : null}</p>
    <table><thead><tr><th>Measure</th><th>Now</th><th>Level</th><th>Thresholds</th></tr></thead><tbody>
      ${rows.map(([l, v, lvl, t]) => html`<tr><td>${l}</td><td>${Number(v || 0).toFixed(3)}%</td><td><${Badge} kind=${levelKind[lvl]}>${lvl}<//></td><td class="muted">${t}</td></tr>`)}
    </tbody></table>
    <p class="muted">Emails all time: ${fmtNum(status.allTime.total)}, bounces ${fmtNum(status.allTime.bounces)}, complaints ${fmtNum(status.allTime.complaints)}. Rates count from 100 emails in the window.</p>
    ${(status.violations || []).length ? html`<div class="alert error"><ul>${status.violations.map((v) => html`<li>${typeof v === 'string' ? v : v.message || JSON.stringify(v)}</li>`)}</ul></div>` : null}
    ${(status.warnings || []).length ? html`<div class="alert warn"><ul>${status.warnings.map((v) => html`<li>${typeof v === 'string' ? v : v.message || JSON.stringify(v)}</li>`)}</ul></div>` : null}
  </section>`;
}

function Danger({ ctx }) {
  const p = ctx.project;
  const [error, setError] = useState(null);
  const reset = async () => { try { await post(`/users/@me/projects/${p.id}/reset`); await ctx.reload(p.id); navigate('/app/'); } catch (e) { setError(e); } };
  const remove = async () => { try { await del(`/users/@me/projects/${p.id}`); localStorage.removeItem('herald.project'); await ctx.reload(); navigate('/app/'); } catch (e) { setError(e); } };
  return html`<section class="card danger-zone" aria-labelledby="dz-h">
    <h2 id="dz-h">Danger zone</h2>
    <${ErrorBox} error=${error} />
    <div class="row"><${Confirm} label="Reset project" danger question="Delete every contact, event, email, template, segment and campaign of this project? Keys, settings, members and domains stay." onConfirm=${reset} /></div>
    <div class="row"><${Confirm} label="Delete project" danger question="Delete this project and everything in it? Its keys stop working at once." onConfirm=${remove} /></div>
  </section>`;
}
