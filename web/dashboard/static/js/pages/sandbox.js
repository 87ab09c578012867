// The sandbox's mailbox (herald serve --sandbox): every message Herald
// would have sent, newest first, and one message as its recipient would
// see it: the HTML in a sandboxed frame (the API serves it under a policy
// of its own; its links open in a new tab, so opens and clicks count as a
// recipient's), the text, the header fields and the source, with the
// result of checking its DKIM signature.
import { html, useState } from '../lib.js';
import { get, qs } from '../api.js';
import { PageHeader, useAsync, Loading, ErrorBox, Badge, Link, fmtDate } from '../ui.js';

const pageSize = 50;

export function DKIMBadge({ result }) {
  return result === 'pass'
    ? html`<${Badge} kind="ok">DKIM pass<//>`
    : html`<${Badge} kind="bad">DKIM fail<//>`;
}

export function SandboxPage({ ctx }) {
  // cursors[i] is the cursor of page i; the first page has none.
  const [cursors, setCursors] = useState(['']);
  const cursor = cursors[cursors.length - 1];
  const list = useAsync(() => get('/sandbox/messages' + qs({ limit: pageSize, cursor })), [ctx.project.id, cursor]);
  const data = list.data;
  return html`<div>
    <${PageHeader} title="Sandbox"><button type="button" onClick=${list.reload}>Refresh</button><//>
    <p class="muted">Herald runs as a sandbox: no email leaves this machine. Every message is delivered here instead,
      signed as it would be sent, with the check of its DKIM signature against the domain's key.</p>
    ${list.error ? html`<${ErrorBox} error=${list.error} />` : !data ? html`<${Loading} />` : data.data.length === 0 && cursors.length === 1
      ? html`<div class="card"><p>No message yet. Send one with the API (<code>POST /v1/send</code>), a campaign or a workflow, and it appears here.</p></div>`
      : html`<div class="card table-wrap"><table class="list sandbox-list">
          <thead><tr><th>Subject</th><th>From</th><th>To</th><th>DKIM</th><th>Received</th></tr></thead>
          <tbody>${data.data.map((m) => html`<tr key=${m.id}>
            <td><${Link} href=${'/app/sandbox/' + encodeURIComponent(m.id)}>${m.subject || '(no subject)'}<//></td>
            <td>${m.from}</td>
            <td>${m.to.join(', ')}</td>
            <td><${DKIMBadge} result=${m.dkim} /></td>
            <td>${fmtDate(m.createdAt)}</td>
          </tr>`)}</tbody>
        </table>
        ${cursors.length === 1 ? html`<p class="muted">${data.total} message${data.total === 1 ? '' : 's'} captured (the newest ${'1,000'} are kept).</p>` : null}
        <div class="pager">
          <button type="button" disabled=${cursors.length === 1} onClick=${() => setCursors(cursors.slice(0, -1))}>Newer</button>
          <button type="button" disabled=${!data.hasMore} onClick=${() => setCursors([...cursors, data.cursor])}>Older</button>
        </div></div>`}
  </div>`;
}

const tabs = [['html', 'HTML'], ['text', 'Text'], ['headers', 'Headers'], ['source', 'Source']];

export function SandboxMessagePage({ ctx, params }) {
  const msg = useAsync(() => get('/sandbox/messages/' + encodeURIComponent(params.id)), [ctx.project.id, params.id]);
  const [tab, setTab] = useState('html');
  const m = msg.data;
  return html`<div>
    <${PageHeader} title=${m ? m.subject || '(no subject)' : 'Message'}><${Link} href="/app/sandbox">Back to the sandbox<//><//>
    ${msg.error ? html`<${ErrorBox} error=${msg.error} />` : !m ? html`<${Loading} />` : html`<div class="card sandbox-message">
      <dl class="meta">
        <dt>From</dt><dd>${m.from}</dd>
        <dt>To</dt><dd>${m.to.join(', ')}</dd>
        <dt>Return path</dt><dd><code>${m.returnPath}</code></dd>
        <dt>Received</dt><dd>${fmtDate(m.createdAt)}</dd>
        <dt>Signature</dt><dd><${DKIMBadge} result=${m.dkim} /> <span class="muted">${m.dkim === 'pass'
          ? 'The DKIM signature verifies against the key Herald holds for the domain.'
          : 'The DKIM signature is missing or does not verify against the key Herald holds for the domain.'}</span></dd>
      </dl>
      <div role="tablist" aria-label="Views of the message" class="tabs">
        ${tabs.map(([id, label]) => html`<button type="button" role="tab" id=${'tab-' + id} aria-selected=${tab === id ? 'true' : 'false'}
          aria-controls=${'panel-' + id} class=${tab === id ? 'primary' : ''} onClick=${() => setTab(id)}>${label}</button>`)}
      </div>
      <div role="tabpanel" id=${'panel-' + tab} aria-labelledby=${'tab-' + tab} class="tab-panel">
        ${tab === 'html' ? (m.html
          ? html`<div class="preview"><iframe title="The message as its recipient sees it" sandbox="allow-popups allow-popups-to-escape-sandbox"
              src=${'/sandbox/messages/' + encodeURIComponent(m.id) + '/view'}></iframe></div>`
          : html`<p class="muted">This message has no HTML part.</p>`) : null}
        ${tab === 'text' ? (m.text ? html`<pre class="wrap-pre">${m.text}</pre>` : html`<p class="muted">This message has no text part.</p>`) : null}
        ${tab === 'headers' ? html`<div class="table-wrap"><table class="headers"><thead><tr><th>Field</th><th>Value</th></tr></thead><tbody>
          ${Object.keys(m.headers).sort().map((k) => html`<tr><td><code>${k}</code></td><td><code class="wrap">${m.headers[k]}</code></td></tr>`)}
        </tbody></table></div>` : null}
        ${tab === 'source' ? html`<pre class="wrap-pre source">${m.raw}</pre>` : null}
      </div>
    </div>`}
  </div>`;
}
