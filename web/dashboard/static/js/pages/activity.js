// Activity feed and analytics.
import { html, useState } from '../lib.js';
import { get, qs } from '../api.js';
import { PageHeader, useAsync, Loading, ErrorBox, Link, fmtDate, fmtNum, fmtPct, timeZone, Field } from '../ui.js';
import { SeriesChart, sumSeries } from '../chart.js';

const labels = {
  'email.sent': 'Sent', 'email.delivery': 'Delivered', 'email.open': 'Opened', 'email.click': 'Clicked',
  'email.bounce': 'Bounced', 'email.complaint': 'Complaint', 'email.received': 'Received',
  'contact.subscribed': 'Subscribed', 'contact.unsubscribed': 'Unsubscribed',
};

function describe(a) {
  const d = a.data || {};
  return d.subject || d.link || d.segmentName || d.reason || '';
}

export function ActivityList({ items, showContact = true }) {
  if (!items || !items.length) return html`<p class="muted">Nothing yet.</p>`;
  return html`<ul class="feed">
    ${items.map((a) => html`<li>
      <span class=${'badge ev ' + a.type.replace(/\W/g, '-')}>${labels[a.type] || a.type}</span>
      ${showContact && a.contactId ? html`<${Link} href=${'/app/contacts/' + a.contactId}>${a.contactEmail || a.contactId}<//>` : null}
      <span class="muted desc">${describe(a)}</span>
      <time datetime=${a.createdAt}>${fmtDate(a.createdAt)}</time>
    </li>`)}
  </ul>`;
}

const categories = [
  ['', 'All activity'], ['email', 'All email events'], ['sent', 'Sent'], ['delivered', 'Delivered'], ['opened', 'Opened'],
  ['clicked', 'Clicked'], ['bounced', 'Bounced'], ['complained', 'Complaints'], ['contact', 'Subscription changes'],
  ['segment', 'Segment entries and exits'], ['tracked', 'Tracked events'],
];

export function ActivityPage({ ctx }) {
  const [type, setType] = useState('');
  const [pages, setPages] = useState(['']);
  const cursor = pages[pages.length - 1];
  const feed = useAsync(() => get('/activity' + qs({ limit: 30, type, cursor })), [ctx.project.id, type, cursor]);
  // The names for the filter come after the feed: the feed is what the
  // page is opened for, and the two would compete for the database.
  const types = useAsync(() => (feed.data || feed.error ? get('/activity/types') : Promise.resolve([])), [ctx.project.id, !!(feed.data || feed.error)]);
  const names = (types.data || []).filter((n) => !categories.some(([k]) => k === n));
  return html`<div>
    <${PageHeader} title="Activity" />
    <div class="toolbar">
      <${Field} label="Type" name="type">${(id) => html`<select id=${id} value=${type} onChange=${(e) => { setType(e.target.value); setPages(['']); }}>
        ${categories.map(([v, l]) => html`<option value=${v}>${l}</option>`)}
        ${names.length ? html`<optgroup label="Event names">${names.map((n) => html`<option value=${n}>${n}</option>`)}</optgroup>` : null}
      </select>`}<//>
    </div>
    ${feed.loading && !feed.data ? html`<${Loading} />` : null}
    <${ErrorBox} error=${feed.error} />
    ${feed.data ? html`<${ActivityList} items=${feed.data.data} />` : null}
    <div class="pager">
      <button type="button" disabled=${pages.length < 2} onClick=${() => setPages(pages.slice(0, -1))}>Newer</button>
      <button type="button" disabled=${!feed.data || !feed.data.hasMore} onClick=${() => setPages([...pages, feed.data.cursor])}>Older</button>
    </div>
  </div>`;
}

const ranges = [['7', 'Last 7 days', 'day'], ['30', 'Last 30 days', 'day'], ['90', 'Last 90 days', 'day'], ['1', 'Last 24 hours', 'hour']];

export function AnalyticsPage({ ctx }) {
  const [range, setRange] = useState('30');
  const [tz, setTz] = useState(timeZone);
  const r = ranges.find((x) => x[0] === range);
  const from = new Date(Date.now() - Number(range) * 864e5).toISOString();
  const series = useAsync(() => get('/analytics/timeseries' + qs({ from, tz, interval: r[2] })), [ctx.project.id, range, tz]);
  const top = useAsync(() => get('/analytics/top-campaigns?limit=10'), [ctx.project.id]);
  const events = useAsync(() => get('/analytics/top-events?limit=10'), [ctx.project.id]);
  const totals = series.data ? sumSeries(series.data.data || []) : null;
  const zones = Array.from(new Set([timeZone, 'UTC', ...(Intl.supportedValuesOf ? Intl.supportedValuesOf('timeZone') : [])]));
  return html`<div>
    <${PageHeader} title="Analytics" />
    <div class="toolbar">
      <${Field} label="Range" name="range">${(id) => html`<select id=${id} value=${range} onChange=${(e) => setRange(e.target.value)}>
        ${ranges.map(([v, l]) => html`<option value=${v}>${l}</option>`)}</select>`}<//>
      <${Field} label="Time zone" name="tz">${(id) => html`<select id=${id} value=${tz} onChange=${(e) => setTz(e.target.value)}>
        ${zones.map((z) => html`<option value=${z}>${z}</option>`)}</select>`}<//>
    </div>
    <${ErrorBox} error=${series.error} />
    ${totals ? html`<section class="stats" aria-label="Totals">
      ${['sent', 'delivered', 'opened', 'clicked', 'bounced', 'complained'].map((k) => html`<div class="stat"><span class="label">${k[0].toUpperCase() + k.slice(1)}</span><span class="value">${fmtNum(totals[k])}</span></div>`)}
    </section>` : null}
    <section class="card"><h2>Emails over time</h2>
      ${series.data ? html`<${SeriesChart} data=${series.data.data || []} tz=${tz} />` : html`<${Loading} />`}
    </section>
    <div class="grid2">
      <section class="card"><h2>Top campaigns</h2>
        ${top.data ? (top.data.length ? html`<table><thead><tr><th>Campaign</th><th>Sent</th><th>Open rate</th><th>Click rate</th></tr></thead><tbody>
          ${top.data.map((c) => html`<tr><td><${Link} href=${'/app/campaigns/' + c.id}>${c.name}<//></td><td>${fmtNum(c.sent)}</td><td>${fmtPct(c.openRate)}</td><td>${fmtPct(c.clickRate)}</td></tr>`)}
        </tbody></table>` : html`<p class="muted">No campaign has sent yet.</p>`) : html`<${ErrorBox} error=${top.error} />`}
      </section>
      <section class="card"><h2>Top events</h2>
        ${events.data ? (events.data.length ? html`<table><thead><tr><th>Event</th><th>Count</th></tr></thead><tbody>
          ${events.data.map((e) => html`<tr><td>${e.name}</td><td>${fmtNum(e.count)}</td></tr>`)}
        </tbody></table>` : html`<p class="muted">No tracked events yet.</p>`) : html`<${ErrorBox} error=${events.error} />`}
      </section>
    </div>
  </div>`;
}
