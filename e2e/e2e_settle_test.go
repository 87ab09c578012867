package e2e

import (
	"bufio"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// waitDeliveriesSettled waits until the server has no delivery job queued
// or running (GET /metrics, herald_jobs). Every send is an attempt of such
// a job, so once none is left no further message, a duplicate included,
// can arrive: tests that assert "exactly once" check after this, not
// after a sleep.
func waitDeliveriesSettled(t *testing.T, s *server) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		pending, err := pendingDeliveries(s)
		if err == nil && pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("deliveries still pending after 60s: %v (%v)", pending, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pendingDeliveries sums herald_jobs{lane="delivery"} over the queued and
// running states.
func pendingDeliveries(s *server) (float64, error) {
	resp, err := http.Get(s.url + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sum, seen := 0.0, false
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "herald_jobs{") || !strings.Contains(line, `lane="delivery"`) {
			continue
		}
		seen = true
		if !strings.Contains(line, `state="queued"`) && !strings.Contains(line, `state="running"`) {
			continue
		}
		v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		if err != nil {
			return 0, err
		}
		sum += v
	}
	if !seen {
		return 1, sc.Err() // no series yet: not known to be settled
	}
	return sum, sc.Err()
}

// waitCampaignSent waits until the campaign is SENT: its fan-out has made
// every email (and its delivery job).
func waitCampaignSent(t *testing.T, s *server, key, id string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := s.call(t, "GET", "/campaigns/"+id, key, nil)
		if r.body["status"] == "SENT" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("campaign not SENT after 60s: %s", r.raw)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
