// A time series chart on uPlot, loaded when a page first shows one.
import { html, useEffect, useRef } from './lib.js';

const series = [
  ['sent', 'Sent', '#2952cc'],
  ['delivered', 'Delivered', '#2e9e5b'],
  ['opened', 'Opened', '#c77d00'],
  ['clicked', 'Clicked', '#8a3ffc'],
  ['bounced', 'Bounced', '#d12b2b'],
];

export function SeriesChart({ data, tz, label = 'Emails over time' }) {
  const box = useRef(null);
  useEffect(() => {
    let plot;
    let live = true;
    import('../third_party/uplot.module.js').then(({ default: uPlot }) => {
      if (!live || !box.current) return;
      const xs = data.map((p) => new Date(p.time).getTime() / 1000);
      const cols = [xs, ...series.map(([k]) => data.map((p) => p[k] || 0))];
      const width = Math.max(300, box.current.clientWidth || 600);
      plot = new uPlot({
        width, height: 240,
        tzDate: tz ? (ts) => uPlot.tzDate(new Date(ts * 1e3), tz) : undefined,
        series: [{}, ...series.map(([, name, stroke]) => ({ label: name, stroke, width: 2 }))],
        axes: [{}, { size: 50 }],
        scales: { x: { time: true } },
      }, cols, box.current);
    });
    return () => { live = false; if (plot) plot.destroy(); };
  }, [data, tz]);
  // The table is the chart's text equivalent, for screen readers.
  return html`<figure class="chart">
    <div ref=${box} role="img" aria-label=${label}></div>
    <figcaption class="sr-only">${label}: ${series.map(([k, n]) => `${n} ${data.reduce((s, p) => s + (p[k] || 0), 0)}`).join(', ')}</figcaption>
  </figure>`;
}

export function sumSeries(data) {
  const out = {};
  for (const [k] of series) out[k] = data.reduce((s, p) => s + (p[k] || 0), 0);
  out.complained = data.reduce((s, p) => s + (p.complained || 0), 0);
  return out;
}
