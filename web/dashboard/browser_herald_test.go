package dashboard_test

import (
	"log/slog"
	"net/http"
	"testing"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/apptest"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/resolver/dnstest"
	"github.com/heraldmail/herald/smtpout/smtptest"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web"
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
// It runs on the real clock: the page reads the browser's, and the two
// must agree.
func startHerald(t *testing.T, options ...func(*app.Options)) *herald {
	t.Helper()
	ln := listenLoopback(t)
	url := "http://" + ln.Addr().String()
	e := apptest.New(t, apptest.Options{RealClock: true, NoProject: true, App: func(o *app.Options) {
		o.BaseURL = url
		for _, adjust := range options {
			adjust(o)
		}
	}})
	h := &herald{URL: url, App: e.App, DB: e.DB, DNS: e.DNS, Sink: e.Sink}
	serve(t, ln, web.New(web.Options{App: h.App, Log: slog.New(slog.DiscardHandler), Clock: clock.System{},
		Features: map[string]bool{"tracking": true}}))
	return h
}

// routeMail points a recipient domain's MX at the SMTP sink.
func (h *herald) routeMail(t *testing.T, domain string) {
	h.DNS.Add(t, domain+". 300 IN MX 10 mx."+domain+".", "mx."+domain+". 300 IN A 127.0.0.1")
}

var _ http.Handler = (*web.Server)(nil)
