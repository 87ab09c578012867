// Package metrics is Herald's Prometheus instrumentation: one registry of
// Herald's own (never the global default), holding the Go runtime and
// process collectors and the herald_* metrics. main builds one Metrics and
// hands it to storage, app and web through their options; a nil *Metrics
// records nothing, so tests and one-shot commands need none.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Delivery outcomes, the values of herald_deliveries_total's label.
const (
	Delivered = "delivered" // accepted by the recipient's server (or the relay)
	Deferred  = "deferred"  // a temporary failure: retried later
	Bounced   = "bounced"   // a permanent failure
	Failed    = "failed"    // given up after temporary failures
)

// Metrics holds Herald's collectors. Its methods are safe for concurrent
// use and do nothing on a nil receiver.
type Metrics struct {
	reg *prometheus.Registry

	httpRequests   *prometheus.CounterVec
	httpDuration   *prometheus.HistogramVec
	deliveries     *prometheus.CounterVec
	dkim           prometheus.Counter
	writeBatches   prometheus.Counter
	writeBatchSize prometheus.Histogram
	eventsTracked  prometheus.Counter
	unrecorded     prometheus.Counter
	domains        *domainCounter
}

// Options tune New.
type Options struct {
	TopDomains int // recipient domains with series of their own; default 10
}

// New builds the registry and Herald's collectors.
func New(o Options) *Metrics {
	if o.TopDomains <= 0 {
		o.TopDomains = 10
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		httpRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_http_requests_total", Help: "HTTP requests answered, by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		httpDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "herald_http_request_duration_seconds", Help: "Time to answer HTTP requests, by method and route pattern.",
			Buckets: prometheus.DefBuckets,
		}, []string{"method", "route"}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "herald_deliveries_total", Help: "Delivery attempts by outcome: delivered, deferred, bounced, failed.",
		}, []string{"outcome"}),
		dkim: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "herald_dkim_signatures_total", Help: "Messages signed with DKIM.",
		}),
		writeBatches: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "herald_db_write_batches_total", Help: "SQLite write transactions committed (each holds one or more writes).",
		}),
		writeBatchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "herald_db_write_batch_size", Help: "Writes grouped into one SQLite transaction.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256},
		}),
		eventsTracked: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "herald_events_tracked_total", Help: "Events recorded through the API (POST /v1/track, /events/track).",
		}),
		unrecorded: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "herald_engagements_unrecorded_total",
			Help: "Opens and clicks answered but not recorded: over the project's HERALD_PUBLIC_PROJECT_RATE_LIMIT.",
		}),
		domains: newDomainCounter(o.TopDomains),
	}
	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.httpRequests, m.httpDuration, m.deliveries, m.dkim, m.writeBatches, m.writeBatchSize, m.eventsTracked,
		m.domains, m.unrecorded,
	)
	for _, o := range []string{Delivered, Deferred, Bounced, Failed} {
		m.deliveries.WithLabelValues(o) // every outcome shows from the start, at 0
	}
	return m
}

// Registry is Herald's registry, for tests and extra collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the registry in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Request counts one HTTP request. route is the pattern of the routes
// table (/t/c/:token), never the path, which may hold tokens and ids.
func (m *Metrics) Request(method, route string, status int, took time.Duration) {
	if m == nil {
		return
	}
	m.httpRequests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.httpDuration.WithLabelValues(method, route).Observe(took.Seconds())
}

// Delivery counts one delivery attempt's outcome for a recipient domain.
func (m *Metrics) Delivery(outcome, domain string) {
	if m == nil {
		return
	}
	m.deliveries.WithLabelValues(outcome).Inc()
	m.domains.add(domain, outcome)
}

// Signed counts one DKIM signature.
func (m *Metrics) Signed() {
	if m != nil {
		m.dkim.Inc()
	}
}

// WriteBatch counts one committed write transaction of n writes.
func (m *Metrics) WriteBatch(n int) {
	if m == nil {
		return
	}
	m.writeBatches.Inc()
	m.writeBatchSize.Observe(float64(n))
}

// EventTracked counts one event recorded through the API.
func (m *Metrics) EventTracked() {
	if m != nil {
		m.eventsTracked.Inc()
	}
}

// EngagementUnrecorded counts an open or click answered but not recorded.
func (m *Metrics) EngagementUnrecorded() {
	if m != nil {
		m.unrecorded.Inc()
	}
}

// JobCount is the number of jobs of a lane in a state.
type JobCount struct {
	Lane, State string
	N           int
}

// Source answers the questions asked at scrape time: the queue's jobs by
// lane and state, and the age of the oldest delivery still waiting.
type Source interface {
	JobCounts(ctx context.Context) ([]JobCount, error)
	OldestQueuedDelivery(ctx context.Context) (time.Duration, error)
}

// Watch registers the gauges read from src at each scrape. Call it once.
func (m *Metrics) Watch(src Source) {
	if m == nil {
		return
	}
	m.reg.MustRegister(&sourceCollector{src: src,
		jobs: prometheus.NewDesc("herald_jobs", "Jobs in the queue by lane and state (queued, running, failed).",
			[]string{"lane", "state"}, nil),
		oldest: prometheus.NewDesc("herald_delivery_oldest_queued_seconds",
			"Age of the oldest delivery still waiting to be sent; 0 when none waits.", nil, nil),
	})
}

// sourceCollector reads the database when scraped, so the gauges are
// right after a restart and cost nothing between scrapes.
type sourceCollector struct {
	src          Source
	jobs, oldest *prometheus.Desc
}

func (c *sourceCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.jobs; ch <- c.oldest }

func (c *sourceCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if counts, err := c.src.JobCounts(ctx); err != nil {
		ch <- prometheus.NewInvalidMetric(c.jobs, err)
	} else {
		for _, jc := range counts {
			ch <- prometheus.MustNewConstMetric(c.jobs, prometheus.GaugeValue, float64(jc.N), jc.Lane, jc.State)
		}
	}
	if age, err := c.src.OldestQueuedDelivery(ctx); err != nil {
		ch <- prometheus.NewInvalidMetric(c.oldest, err)
	} else {
		ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, age.Seconds())
	}
}
