package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heraldmail/herald/storage"
)

// serveInProcess runs `herald serve` on dir until the test ends and
// returns its base URL.
func serveInProcess(t *testing.T, env map[string]string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	full := map[string]string{"HERALD_LISTEN": addr, "HERALD_LOG_LEVEL": "warn", "HERALD_DNS_SERVER": "127.0.0.1:1"}
	for k, v := range env {
		full[k] = v
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := newRootCmdWith(func(k string) (string, bool) { v, ok := full[k]; return v, ok }, "")
	cmd.SetArgs([]string{"serve"})
	done := make(chan error, 1)
	go func() { done <- cmd.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	url := "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url + "/healthz"); err == nil {
			resp.Body.Close()
			return url
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited: %v", err)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatal("serve did not answer")
	return ""
}

// TestBackupDuringWritesAndRestore: a backup taken while writes stream in
// holds every write acknowledged before it began; restore is refused while
// the server holds the data directory and puts the copy in a fresh one.
func TestBackupDuringWritesAndRestore(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	env := map[string]string{"HERALD_DATA_DIR": dir, "HERALD_RATE_LIMIT": "0"}
	out, err := runCLI(t, env, "", "project", "create", "--name", "Backup", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var p struct{ Secret string }
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	url := serveInProcess(t, env)

	var mu sync.Mutex
	var acked []string
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				email := fmt.Sprintf("w%d-%d@example.com", w, i)
				body, _ := json.Marshal(map[string]any{"email": email})
				req, _ := http.NewRequest("POST", url+"/contacts", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+p.Secret)
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				if resp.StatusCode/100 == 2 {
					mu.Lock()
					acked = append(acked, email)
					mu.Unlock()
				}
			}
		}()
	}
	waitUntil(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 150 })
	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()
	backup := filepath.Join(t.TempDir(), "herald-backup.db")
	if _, err := runCLI(t, env, "", "backup", backup); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	during := len(acked) - len(before)
	mu.Unlock()
	stop.Store(true)
	wg.Wait()
	if fi, err := os.Stat(backup); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v", fi.Mode(), err)
	}

	// Refused while the server holds the data directory: exit 1, saying why.
	_, err = runCLI(t, env, "", "restore", backup)
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "another herald serve") {
		t.Fatalf("restore beside a running server: %v", err)
	}

	fresh := filepath.Join(t.TempDir(), "restored", "data") // made by restore
	if _, err := runCLI(t, map[string]string{"HERALD_DATA_DIR": fresh}, "", "restore", backup); err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(context.Background(), fresh, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	have := map[string]bool{}
	rows, err := db.Reader().Query(context.Background(), `SELECT email FROM contacts`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var e string
		_ = rows.Scan(&e)
		have[e] = true
	}
	rows.Close()
	for _, e := range before {
		if !have[e] {
			t.Fatalf("%s was acknowledged before the backup began but is not in it", e)
		}
	}
	t.Logf("%d writes acknowledged before the backup, %d during it; the backup holds %d contacts", len(before), during, len(have))
}

func waitUntil(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if ok() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("timed out")
}
