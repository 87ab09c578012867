package app_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/apptest"
	"github.com/heraldmail/herald/app/audience"
)

// BenchmarkImportContacts imports a CSV of HERALD_BENCH_IMPORT_ROWS new
// contacts (default 20,000; three columns, emails in no order, as a real
// file has them) through the import job, and reports the CPU per row. Its
// chunks of 500 upserts per write are the writer's largest transactions
// after a campaign's fan-out: the measure of what a smaller writer page
// cache costs a write that dirties many pages (docs/performance.md, "The
// writer, fifth pass").
func BenchmarkImportContacts(b *testing.B) {
	n := 20000
	if v, err := strconv.Atoi(os.Getenv("HERALD_BENCH_IMPORT_ROWS")); err == nil && v > 0 {
		n = v
	}
	file := importBenchCSV(n)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := apptest.New(b, apptest.Options{Offline: true})
		b.StartTimer()
		cpu0 := processCPU()
		accepted, err := e.App.Audience.ImportContacts(e.Context(), e.Project.ID, file)
		if err != nil {
			b.Fatal(err)
		}
		waitForJob(b, e, accepted.JobID)
		b.ReportMetric(float64(processCPU()-cpu0)/float64(n)/1e3, "cpu-µs/row")
	}
}

// importBenchCSV is n rows of email, name and plan; the emails are spread
// over the index by a multiplicative hash of the row number.
func importBenchCSV(n int) []byte {
	var s strings.Builder
	s.WriteString("email,name,plan\n")
	for i := range n {
		fmt.Fprintf(&s, "u%08x@example.com,Contact %d,%s\n", uint32(i)*2654435761, i, []string{"free", "pro", "team"}[i%3])
	}
	return []byte(s.String())
}

// waitForJob waits until the import job has completed.
func waitForJob(b *testing.B, e *apptest.Env, id string) {
	deadline := time.Now().Add(10 * time.Minute)
	for time.Now().Before(deadline) {
		s, err := e.App.Audience.JobStatus(e.Context(), e.Project.ID, audience.JobImportContacts, id)
		if err != nil {
			b.Fatal(err)
		}
		switch s.State {
		case "completed":
			return
		case "failed":
			b.Fatalf("import failed: %s", *s.FailedReason)
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.Fatal("import did not finish")
}
