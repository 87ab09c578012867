package web_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// An import's chunks share group commits with API writes, some of which
// fail inside their transaction (a PATCH to a missing contact, say). A
// failure reruns its group write by write; every chunk must still land
// exactly once, and the counts must match what was stored.
func TestImportBesideFailingWrites(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	const rows = 1500
	var b strings.Builder
	b.WriteString("email,n\n")
	for i := range rows {
		fmt.Fprintf(&b, "c%05d@example.com,%d\n", i, i)
	}
	id := jobID(t, upload(t, e, "file", b.String()))

	var stop atomic.Bool
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stop.Store(true)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				e.Secret("PATCH", "/contacts/missing", map[string]any{"subscribed": false})
				time.Sleep(time.Millisecond) // leave the import room to progress
			}
		}()
	}
	st := e.WaitJob("/contacts/import/" + id)
	res := st["result"].(map[string]any)
	if st["state"] != "completed" || res["created"] != float64(rows) || res["rejected"] != float64(0) {
		t.Fatalf("import %v", st)
	}
	if n := countContacts(t, e); n != rows {
		t.Fatalf("%d contacts stored, import counted %v", n, res["created"])
	}
}
