// Overview: the setup checklist, headline numbers, the chart, recent
// activity.
import { html } from '../lib.js';
import { get, qs } from '../api.js';
import { PageHeader, useAsync, Loading, ErrorBox, Link, fmtNum, fmtDate, timeZone } from '../ui.js';
import { SeriesChart, sumSeries } from '../chart.js';
import { ActivityList } from './activity.js';

export function OverviewPage({ ctx }) {
  const pid = ctx.project.id;
  const setup = useAsync(() => get(`/projects/${pid}/setup-state`), [pid]);
  const from = new Date(Date.now() - 30 * 864e5).toISOString();
  const series = useAsync(() => get('/analytics/timeseries' + qs({ from, tz: timeZone, interval: 'day' })), [pid]);
  const recent = useAsync(() => get('/activity?limit=10'), [pid]);

  const s = setup.data;
  const steps = s ? [
    [s.hasVerifiedDomain, 'Add a sender domain and publish its DNS records', '/app/domains'],
    [s.contactCount > 0, 'Add or import contacts', '/app/contacts'],
    [s.hasSentEmail, 'Send a first email (a campaign, or the API)', '/app/campaigns'],
  ] : [];
  const totals = series.data ? sumSeries(series.data.data || []) : null;
  const rate = (a, b) => (b ? `${((a / b) * 100).toFixed(1)}%` : '—');
  return html`<div>
    <${PageHeader} title=${ctx.project.name} />
    <p class="muted">Overview of the last 30 days, times in ${timeZone}.</p>
    ${setup.loading ? html`<${Loading} />` : html`<${ErrorBox} error=${setup.error} />`}
    ${s && steps.some(([done]) => !done) ? html`<section class="card" aria-labelledby="setup-h">
      <h2 id="setup-h">Get started</h2>
      <ol class="checklist">
        ${steps.map(([done, text, href]) => html`<li class=${done ? 'done' : ''}>
          <span class="check" aria-hidden="true">${done ? '✓' : '○'}</span>
          ${done ? html`<span>${text}</span><span class="sr-only"> (done)</span>` : html`<${Link} href=${href}>${text}<//>`}
        </li>`)}
      </ol>
    </section>` : null}
    <section class="stats" aria-label="Headline numbers">
      <div class="stat"><span class="label">Contacts</span><span class="value">${s ? fmtNum(s.contactCount) : '—'}</span></div>
      <div class="stat"><span class="label">Sent</span><span class="value">${totals ? fmtNum(totals.sent) : '—'}</span></div>
      <div class="stat"><span class="label">Delivered</span><span class="value">${totals ? fmtNum(totals.delivered) : '—'}</span><span class="sub">${totals ? rate(totals.delivered, totals.sent) : ''}</span></div>
      <div class="stat"><span class="label">Opened</span><span class="value">${totals ? fmtNum(totals.opened) : '—'}</span><span class="sub">${totals ? rate(totals.opened, totals.delivered) : ''}</span></div>
      <div class="stat"><span class="label">Clicked</span><span class="value">${totals ? fmtNum(totals.clicked) : '—'}</span><span class="sub">${totals ? rate(totals.clicked, totals.delivered) : ''}</span></div>
      <div class="stat"><span class="label">Bounced</span><span class="value">${totals ? fmtNum(totals.bounced) : '—'}</span><span class="sub">${totals ? rate(totals.bounced, totals.sent) : ''}</span></div>
    </section>
    ${s && s.lastCampaignSentAt ? html`<p class="muted">Last campaign sent ${fmtDate(s.lastCampaignSentAt)}.</p>` : null}
    <section class="card" aria-labelledby="chart-h">
      <h2 id="chart-h">Emails per day</h2>
      ${series.data ? html`<${SeriesChart} data=${series.data.data || []} tz=${timeZone} />` : html`<${ErrorBox} error=${series.error} />`}
    </section>
    <section class="card" aria-labelledby="recent-h">
      <h2 id="recent-h">Recent activity</h2>
      ${recent.data ? html`<${ActivityList} items=${recent.data.data} />` : html`<${ErrorBox} error=${recent.error} />`}
      <p><${Link} href="/app/activity">All activity<//></p>
    </section>
  </div>`;
}
