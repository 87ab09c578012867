package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// BenchmarkCampaignFanout sends one campaign (10 KB HTML, RSA-2048 DKIM) to
// HERALD_BENCH_CONTACTS contacts (default 2000; the README's figure uses
// 100000) and measures, from /send until the local sink holds every
// message, messages delivered per second and the process's peak resident
// memory. bench/campaign.sh reports it against BenchmarkMsgauthSignAllCores.
func BenchmarkCampaignFanout(b *testing.B) {
	n := 2000
	if v, err := strconv.Atoi(os.Getenv("HERALD_BENCH_CONTACTS")); err == nil && v > 0 {
		n = v
	}
	for i := 0; i < b.N; i++ {
		e := sendBenchEnv(b, true)
		e.Sink.DiscardData()
		seedBenchContacts(b, e, n)
		r := e.Secret("POST", "/campaigns", map[string]any{"name": "Bench", "subject": "News for {{email}}",
			"body": tenKBHTML(), "from": "news@herald.test", "audienceType": "ALL"})
		if r.Status != 201 {
			b.Fatalf("campaign: %d %s", r.Status, r.Body)
		}
		id := r.JSON()["data"].(map[string]any)["id"].(string)
		b.StartTimer()
		start, cpu0 := time.Now(), processCPU()
		probe := startProbe(e)
		if r := e.Secret("POST", "/campaigns/"+id+"/send", nil); r.Status != 200 {
			b.Fatalf("send: %d %s", r.Status, r.Body)
		}
		if got := e.Sink.WaitCount(n, 30*time.Minute); got != n {
			b.Fatalf("delivered %d of %d", got, n)
		}
		b.StopTimer()
		probe.stop(b, n)
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "msg/s")
		b.ReportMetric(float64(processCPU()-cpu0)/float64(n)/1e3, "cpu-µs/msg")
		b.ReportMetric(float64(peakRSS())/(1<<20), "peak-MB")
	}
}

// seedBenchContacts inserts n subscribed contacts straight into storage, in
// large transactions: seeding is not what is measured.
func seedBenchContacts(b *testing.B, e *webtest.Env, n int) {
	ctx := context.Background()
	now := time.Now()
	for start := 0; start < n; start += 5000 {
		err := e.DB.Write(ctx, func(tx *storage.Tx) error {
			for i := start; i < min(start+5000, n); i++ {
				data, _ := json.Marshal(map[string]any{"name": fmt.Sprintf("Contact %d", i)})
				c := storage.Contact{ID: fmt.Sprintf("01900000-0000-7000-8000-%012d", i), ProjectID: e.Project.ID,
					Email: fmt.Sprintf("c%07d@example.net", i), Subscribed: true, Data: data, CreatedAt: now, UpdatedAt: now}
				if err := tx.InsertContact(ctx, c); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// peakRSS is the process's peak resident set size in bytes (Linux).
func peakRSS() int64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
