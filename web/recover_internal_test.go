package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/clock/clocktest"
)

// newBareServer is a Server with no app, for the middleware alone.
func newBareServer(logs *bytes.Buffer) *Server {
	return &Server{log: slog.New(slog.NewJSONHandler(logs, nil)), clock: clocktest.NewFake(time.Unix(0, 0))}
}

func TestPanicIsA500EnvelopeAndALogLine(t *testing.T) {
	var logs bytes.Buffer
	s := newBareServer(&logs)
	srv := httptest.NewServer(s.outer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("handler bug with secret detail")
	})))
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/x")
	if err != nil {
		t.Fatalf("connection dropped: %v", err)
	}
	defer resp.Body.Close()
	var env envelope
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	id := resp.Header.Get("X-Request-Id")
	if resp.StatusCode != 500 || env.Error.Code != "INTERNAL_SERVER_ERROR" || env.Error.RequestID != id || id == "" {
		t.Fatalf("%d %+v", resp.StatusCode, env)
	}
	if strings.Contains(env.Error.Message, "secret detail") {
		t.Fatal("the panic's text reached the client")
	}
	if !strings.Contains(logs.String(), `"msg":"panic in handler"`) || !strings.Contains(logs.String(), id) {
		t.Fatalf("logs %s", logs.String())
	}
}

func TestInternalErrorsDoNotLeak(t *testing.T) {
	var logs bytes.Buffer
	s := newBareServer(&logs)
	rec := httptest.NewRecorder()
	req := withRequest(httptest.NewRequest("GET", "/x", nil), &request{id: "req_1"})
	s.writeError(rec, req, errors.New("disk full at /var/lib/herald"))
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "disk full") {
		t.Fatalf("%d %s", rec.Code, rec.Body.String())
	}
	if !strings.Contains(logs.String(), "disk full") || !strings.Contains(logs.String(), "req_1") {
		t.Fatalf("cause not logged with the request id: %s", logs.String())
	}
}

// Every route of the table is reachable by its own path, and each reaches
// its own handler, whatever the router had to do about clashing segments.
func TestEveryRouteIsReachable(t *testing.T) {
	s := &Server{}
	var hit string
	r := newRouter(s.routes(), func(rt route) http.Handler {
		return http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hit = rt.method + " " + rt.path })
	}, http.NotFoundHandler())
	for _, rt := range s.routes() {
		path := fillParams(rt.path)
		hit = ""
		req := withRequest(httptest.NewRequest(rt.method, path, nil), &request{})
		r.ServeHTTP(httptest.NewRecorder(), req)
		if want := rt.method + " " + rt.path; hit != want {
			t.Errorf("%s %s (as %s) reached %q", rt.method, rt.path, path, hit)
		}
	}
}

// fillParams gives every :param segment a value.
func fillParams(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if strings.HasPrefix(s, ":") {
			parts[i] = "v" + s[1:]
		}
	}
	return strings.Join(parts, "/")
}

// A handler whose work stopped because its client went away (its context
// ended) owes nobody an answer, and that is no error of ours: it was a 500
// and an ERROR line.
func TestClientGoneDuringWorkIsNotAnError(t *testing.T) {
	var logs bytes.Buffer
	s := &Server{log: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		clock: clocktest.NewFake(time.Unix(0, 0))}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := withRequest(httptest.NewRequest("GET", "/x", nil).WithContext(ctx), &request{id: "req_1"})
	w := httptest.NewRecorder()
	s.writeError(w, r, fmt.Errorf("count: %w", context.Canceled))
	if w.Body.Len() != 0 || strings.Contains(logs.String(), `"level":"ERROR"`) || !strings.Contains(logs.String(), `"level":"DEBUG"`) {
		t.Fatalf("answered %d %q, logged %s", w.Code, w.Body, logs.String())
	}
	// The same error while the client is still there is ours: a 500.
	logs.Reset()
	w = httptest.NewRecorder()
	s.writeError(w, withRequest(httptest.NewRequest("GET", "/x", nil), &request{id: "req_2"}), context.Canceled)
	if w.Code != 500 || !strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Fatalf("answered %d, logged %s", w.Code, logs.String())
	}
}
