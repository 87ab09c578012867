package metrics

import (
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestDeliveriesByDomainKeepTopN: the N domains with the most attempts
// have series of their own; the rest are summed under "other".
func TestDeliveriesByDomainKeepTopN(t *testing.T) {
	m := New(Options{TopDomains: 2})
	for i := range 5 {
		for range 5 - i { // d0 gets 5 attempts, d1 4, ... d4 1
			m.Delivery(Delivered, fmt.Sprintf("D%d.example", i))
		}
	}
	m.Delivery(Bounced, "d0.example")
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range fams {
		if f.GetName() != "herald_deliveries_by_domain_total" {
			continue
		}
		for _, s := range f.Metric {
			key := ""
			for _, l := range s.Label {
				key += l.GetName() + "=" + l.GetValue() + " "
			}
			got[key] = s.Counter.GetValue()
		}
	}
	want := map[string]float64{
		"domain=d0.example outcome=delivered ": 5, "domain=d0.example outcome=bounced ": 1,
		"domain=d1.example outcome=delivered ": 4, "domain=other outcome=delivered ": 3 + 2 + 1,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if n := testutil.ToFloat64(m.deliveries.WithLabelValues(Delivered)); n != 15 {
		t.Fatalf("herald_deliveries_total{delivered} = %v", n)
	}
	var nilMetrics *Metrics
	nilMetrics.Delivery(Delivered, "x.example") // a nil *Metrics counts nothing and does not panic
	nilMetrics.Request("GET", "/x", 200, 0)
}
