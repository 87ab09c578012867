package metrics

import (
	"sort"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// maxDomains bounds the domains counted by name; later ones count as
// "other". A sender to millions of domains keeps a bounded map.
const maxDomains = 10000

// domainCounter counts delivery outcomes per recipient domain and exposes
// the top N domains by attempts as herald_deliveries_by_domain_total,
// with every other domain summed under domain="other": a bounded number
// of series however many domains Herald mails.
type domainCounter struct {
	top  int
	desc *prometheus.Desc

	mu     sync.Mutex
	counts map[string]map[string]float64 // domain -> outcome -> n
	totals map[string]float64
}

func newDomainCounter(top int) *domainCounter {
	return &domainCounter{top: top, counts: map[string]map[string]float64{}, totals: map[string]float64{},
		desc: prometheus.NewDesc("herald_deliveries_by_domain_total",
			"Delivery attempts by outcome for the recipient domains with the most attempts; the rest under domain=\"other\".",
			[]string{"domain", "outcome"}, nil)}
}

func (d *domainCounter) add(domain, outcome string) {
	domain = strings.ToLower(domain)
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.counts[domain]; !ok {
		if len(d.counts) >= maxDomains {
			domain = "other"
		}
		if d.counts[domain] == nil {
			d.counts[domain] = map[string]float64{}
		}
	}
	d.counts[domain][outcome]++
	d.totals[domain]++
}

func (d *domainCounter) Describe(ch chan<- *prometheus.Desc) { ch <- d.desc }

func (d *domainCounter) Collect(ch chan<- prometheus.Metric) {
	d.mu.Lock()
	defer d.mu.Unlock()
	names := make([]string, 0, len(d.counts))
	for name := range d.counts {
		if name != "other" {
			names = append(names, name)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		if d.totals[names[i]] != d.totals[names[j]] {
			return d.totals[names[i]] > d.totals[names[j]]
		}
		return names[i] < names[j]
	})
	other := map[string]float64{}
	for outcome, n := range d.counts["other"] {
		other[outcome] += n
	}
	for i, name := range names {
		if i >= d.top {
			for outcome, n := range d.counts[name] {
				other[outcome] += n
			}
			continue
		}
		for outcome, n := range d.counts[name] {
			ch <- prometheus.MustNewConstMetric(d.desc, prometheus.CounterValue, n, name, outcome)
		}
	}
	for outcome, n := range other {
		ch <- prometheus.MustNewConstMetric(d.desc, prometheus.CounterValue, n, "other", outcome)
	}
}
