package dashboard_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/resolver"
	"github.com/heraldmail/herald/resolver/dnstest"
	"github.com/heraldmail/herald/smtpout"
	"github.com/heraldmail/herald/smtpout/smtptest"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web"
	"github.com/heraldmail/herald/web/webtest"
)

// herald is a whole Herald on loopback for a browser: the base URL is the
// server's own, so the CSRF rule's Origin check sees the page's origin.
type herald struct {
	URL  string
	App  *app.App
	DB   *storage.DB
	DNS  *dnstest.Server
	Sink *smtptest.Sink
}

// startHerald starts a Herald; each option may change its app.Options.
func startHerald(t *testing.T, options ...func(*app.Options)) *herald {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	db, err := storage.Open(ctx, t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := &herald{DB: db, DNS: dnstest.Start(t), Sink: smtptest.Start(t)}
	ln := listenLoopback(t)
	h.URL = "http://" + ln.Addr().String()
	log := slog.New(slog.DiscardHandler)
	dns := resolver.New(h.DNS.Addr, time.Second)
	mailer := smtpout.New(smtpout.Config{Hostname: "herald.test", Port: h.Sink.Port,
		Timeouts: smtpout.Timeouts{Connect: 2 * time.Second, Greeting: 2 * time.Second, Command: 2 * time.Second, Data: 5 * time.Second}},
		dns, &net.Dialer{}, log)
	// The real clock: the page reads the browser's, and the two must agree.
	clock := queue.SystemClock{}
	opts := app.Options{DB: db, Clock: clock, Log: log, BaseURL: h.URL, DNS: dns, Mailer: mailer, Workers: 2,
		Verifier: verify.New(verify.Options{DNS: dns, CacheTTL: -1}),
		Accounts: app.AccountOptions{Password: webtest.FastPasswords}}
	for _, o := range options {
		o(&opts)
	}
	h.App = app.New(opts)
	srv := serve(t, ln, web.New(web.Options{App: h.App, Log: log, Clock: clock, Features: map[string]bool{"tracking": true}}))
	done := make(chan struct{})
	go func() { defer close(done); _ = h.App.Run(ctx) }()
	t.Cleanup(func() {
		srv.Close()
		cancel()
		<-done
		mailer.Close()
		db.Close()
	})
	return h
}

// routeMail points a recipient domain's MX at the SMTP sink.
func (h *herald) routeMail(t *testing.T, domain string) {
	h.DNS.Add(t, domain+". 300 IN MX 10 mx."+domain+".", "mx."+domain+". 300 IN A 127.0.0.1")
}

var _ http.Handler = (*web.Server)(nil)
