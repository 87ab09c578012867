package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"

	"github.com/heraldmail/herald/web/webtest"
)

// The engagement benchmarks (bench/engage.sh): GET /t/o/{token} (the open
// pixel) and GET /t/c/{token} (the click redirect) through the full stack,
// 64 concurrent clients, each request's email.open or email.click event and
// first-open/click stamp committed before the answer (the writer commits
// the requests that queue during a transaction together). The tokens cycle
// over engageEmails messages. The baseline, BenchmarkEngageBaseline, is an
// httprouter GET handler that answers the same pixel with no work: the
// ceiling of the HTTP stack on this machine, which the engagement routes
// share.

const engageEmails = 200

// engageLinks sends engageEmails messages with tracking and returns the
// paths of their open pixels and first click links.
func engageLinks(b *testing.B, clock *serverClock) (*webtest.Env, []string, []string) {
	e := webtest.New(b, webtest.Options{RateLimit: 1 << 30, Wrap: clock.wrap})
	verifiedDomain(b, e, "herald.test")
	e.RouteMail("example.net")
	for i := range engageEmails {
		if r := e.Secret("POST", "/v1/send", sendBody(i, `<p>Hi, read <a href="https://example.com/post?a=1">this</a>.</p>`+articleHTML)); r.Status != 200 {
			b.Fatalf("send: %d %s", r.Status, r.Body)
		}
	}
	got := e.Sink.Wait(engageEmails, time.Minute)
	if len(got) != engageEmails {
		b.Fatalf("delivered %d of %d", len(got), engageEmails)
	}
	var opens, clicks []string
	for _, m := range got {
		html := htmlPart(b, m.Data)
		o, c := openPixel.FindStringSubmatch(html), clickLink.FindStringSubmatch(html)
		if o == nil || c == nil {
			b.Fatalf("no tracking links in %s", html)
		}
		opens, clicks = append(opens, o[1]), append(clicks, c[1])
	}
	return e, opens, clicks
}

func BenchmarkEngageOpen(b *testing.B) {
	clock := &serverClock{}
	e, opens, _ := engageLinks(b, clock)
	loadGET(b, e.Server.URL, opens, http.StatusOK, clock)
}

func BenchmarkEngageClick(b *testing.B) {
	clock := &serverClock{}
	e, _, clicks := engageLinks(b, clock)
	loadGET(b, e.Server.URL, clicks, http.StatusFound, clock)
}

// BenchmarkEngageBaseline is the ceiling: a GET handler that answers the
// pixel and does nothing else.
func BenchmarkEngageBaseline(b *testing.B) {
	r := httprouter.New()
	r.GET("/t/o/:token", func(w http.ResponseWriter, _ *http.Request, _ httprouter.Params) {
		w.Header().Set("Content-Type", "image/gif")
		w.Header().Set("Cache-Control", "no-store, max-age=0")
		_, _ = w.Write([]byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"))
	})
	clock := &serverClock{}
	srv := httptest.NewServer(clock.wrap(r))
	defer srv.Close()
	paths := make([]string, engageEmails)
	for i := range paths {
		paths[i] = "/t/o/" + string(rune('a'+i%26)) + "token"
	}
	loadGET(b, srv.URL, paths, http.StatusOK, clock)
}

// loadGET sends b.N GET requests for paths, in turn, from benchClients
// goroutines without following redirects (runLoad), and reports req/s,
// p99 and the server's p99 (clock wraps the server's handler).
func loadGET(b *testing.B, base string, paths []string, want int, clock *serverClock) {
	client := benchClient()
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	runLoad(b, clock, func(i int64) bool {
		resp, err := client.Get(base + paths[int(i)%len(paths)])
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode == want
	})
}
