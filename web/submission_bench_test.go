package web_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/heraldmail/herald/smtpin"
	"github.com/heraldmail/herald/web/webtest"
)

// The submission benchmarks (bench/submission.sh prints their medians and
// ratio), both with delivery paused, so that they measure accepting:
//   - BenchmarkSubmissionAccepted: 10 KB messages accepted per second over
//     4 SMTP submission sessions (STARTTLS, AUTH PLAIN, each logged in
//     before the timer), each message one recipient: parse, checks,
//     contact, tracking of its HTML part, DKIM signature and commit,
//     answered 250 with its id.
//   - BenchmarkSendAccepted4: POST /v1/send of 10 KB of HTML to one
//     recipient from 4 clients (keep-alive), answered 200: the same work
//     through the API, the baseline of the ratio.

// benchSessions is the number of parallel SMTP sessions and HTTP clients.
const benchSessions = 4

// tenKBMessage is a submitted message of about 10 KB: the HTML of
// tenKBHTML in lines SMTP can carry, From the benchmark's verified domain.
func tenKBMessage(i int) string {
	html := strings.ReplaceAll(tenKBHTML(), "</p>", "</p>\r\n")
	return fmt.Sprintf("From: News <news@herald.test>\r\nTo: user%d@example.net\r\nSubject: News\r\n"+
		"MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n%s\r\n", i, html)
}

func BenchmarkSubmissionAccepted(b *testing.B) {
	e := sendBenchEnv(b, false)
	addr := startBenchSubmission(b, e)
	clients := make([]*smtp.Client, benchSessions)
	for i := range clients {
		c, err := smtp.DialStartTLS(addr, &tls.Config{InsecureSkipVerify: true})
		if err != nil {
			b.Fatal(err)
		}
		defer c.Close()
		if err := c.Auth(sasl.NewPlainClient("", "herald", e.Project.Secret)); err != nil {
			b.Fatal(err)
		}
		clients[i] = c
	}
	template := tenKBMessage(0)
	b.SetBytes(int64(len(template)))
	runSessions(b, func(session int, i int64) error {
		c, to := clients[session], fmt.Sprintf("user%d@example.net", i)
		if err := c.Mail("news@herald.test", nil); err != nil {
			return err
		}
		if err := c.Rcpt(to, nil); err != nil {
			return err
		}
		w, err := c.Data()
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, strings.Replace(template, "user0@", fmt.Sprintf("user%d@", i), 1)); err != nil {
			return err
		}
		return w.Close()
	})
}

func BenchmarkSendAccepted4(b *testing.B) {
	e := sendBenchEnv(b, false)
	html := tenKBHTML()
	body := sendBodyBytes(b, html)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost, tr.MaxConnsPerHost = benchSessions, benchSessions
	client := &http.Client{Transport: tr}
	b.SetBytes(int64(len(body(0))))
	runSessions(b, func(_ int, i int64) error {
		if status := doPOST(client, e.Server.URL+"/v1/send", e.Project.Secret, body(int(i))); status != http.StatusOK {
			return fmt.Errorf("send: %d", status)
		}
		return nil
	})
}

// runSessions runs b.N calls of one over benchSessions goroutines (each a
// session: its number is given) and reports the messages per second, the
// CPU time per message and the peak RSS.
func runSessions(b *testing.B, one func(session int, i int64) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, benchSessions)
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	for s := 0; s < benchSessions; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(b.N); i = next.Add(1) - 1 {
				if err := one(s, i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	select {
	case err := <-errs:
		b.Fatal(err)
	default:
	}
	reportRate(b, start, cpu0)
}

// startBenchSubmission runs the submission listener over the Env's app
// (STARTTLS, no wrong-key counter) and returns its address.
func startBenchSubmission(b *testing.B, e *webtest.Env) string {
	cert, err := smtpin.LoadOrCreateCertificate(filepath.Join(b.TempDir(), smtpin.SelfSignedFile), "smtp.herald.test")
	if err != nil {
		b.Fatal(err)
	}
	srv, err := smtpin.NewSubmission(smtpin.SubmissionConfig{Hostname: "smtp.herald.test",
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}}, e.App.Messaging.Submitter(), slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return ln.Addr().String()
}
