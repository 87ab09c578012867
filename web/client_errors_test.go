package web_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/mail"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// Each test here is a request that answered 500 (and logged ERROR) while
// the mistake was the client's.

// A display name of 1,000 characters made a header line too long to build.
func TestLongDisplayNamesAre422(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.net")
	long, max := strings.Repeat("n", 1000), strings.Repeat("é", 256)
	send := func(extra map[string]any) webtest.Response {
		b := map[string]any{"to": "a@example.net", "from": "x@herald.test", "subject": "s", "body": "b"}
		for k, v := range extra {
			b[k] = v
		}
		return e.Secret("POST", "/v1/send", b)
	}
	expectField(t, send(map[string]any{"from": map[string]any{"name": long, "email": "x@herald.test"}}), "from.name", "too_big")
	expectField(t, send(map[string]any{"name": long}), "from", "too_big")
	expectField(t, send(map[string]any{"to": map[string]any{"name": long, "email": "a@example.net"}}), "to.name", "too_big")
	expectField(t, send(map[string]any{"to": []any{"b@example.net", map[string]any{"name": long, "email": "a@example.net"}}}), "to.1.name", "too_big")
	expectField(t, send(map[string]any{"to": map[string]any{"name": "A\r\nBcc: c@example.net", "email": "a@example.net"}}), "to.name", "invalid_string")
	if n := countContacts(t, e); n != 0 {
		t.Fatalf("a refused send created %d contacts", n)
	}
	expectStatus(t, send(map[string]any{"from": map[string]any{"name": max, "email": "x@herald.test"}}), 200)
	expectStatus(t, send(map[string]any{"to": map[string]any{"name": max, "email": "a@example.net"}}), 200)

	tpl := map[string]any{"name": "t", "subject": "s", "body": "b", "from": "x@herald.test", "fromName": long}
	expectField(t, e.Secret("POST", "/templates", tpl), "fromName", "too_big")
	tpl["fromName"] = max
	expectStatus(t, e.Secret("POST", "/templates", tpl), 201)
	expectField(t, e.Secret("POST", "/campaigns", campaignBody(map[string]any{"fromName": long})), "fromName", "too_big")
}

// nested is a data value n containers deep: {"a":{"a":...1}}.
func nested(n int) string {
	return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
}

// Data nested 1,000 levels deep reached SQLite's JSON parser, which refused
// it: a 500. Data may nest 32 levels, the data object being the first.
func TestDeepDataIs422(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	verifiedDomain(t, e, "herald.test")
	c := createContact(t, e, map[string]any{"email": "c@example.net"})
	for _, depth := range []int{33, 1001} {
		d := nested(depth)
		for _, r := range []webtest.Response{
			e.Secret("POST", "/contacts", `{"email":"d@example.net","data":`+d+`}`),
			e.Secret("PATCH", "/contacts/"+c.ID, `{"data":`+d+`}`),
			e.Public("POST", "/v1/track", `{"email":"d@example.net","event":"e","data":`+d+`}`),
			e.Secret("POST", "/events/track", `{"email":"d@example.net","event":"e","data":`+d+`}`),
			e.Secret("POST", "/v1/send", `{"to":"d@example.net","from":"x@herald.test","subject":"s","body":"b","data":`+d+`}`),
		} {
			expectField(t, r, "data", "too_big")
		}
	}
	if n := countContacts(t, e); n != 1 {
		t.Fatalf("%d contacts", n)
	}
	expectStatus(t, e.Secret("POST", "/contacts", `{"email":"d@example.net","data":`+nested(32)+`}`), 201)
	expectStatus(t, e.Public("POST", "/v1/track", `{"email":"d@example.net","event":"e","data":{"list":[`+nested(30)+`]}}`), 200)
	expectField(t, e.Public("POST", "/v1/track", `{"email":"d@example.net","event":"e","data":{"list":[`+nested(31)+`]}}`), "data", "too_big")
}

// 1e400 was stored as infinity.
func TestNumbersOutsideFloat64Are422(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	verifiedDomain(t, e, "herald.test")
	c := createContact(t, e, map[string]any{"email": "c@example.net"})
	for _, r := range []webtest.Response{
		e.Secret("POST", "/contacts", `{"email":"d@example.net","data":{"n":1e400}}`),
		e.Secret("PATCH", "/contacts/"+c.ID, `{"data":{"n":-1e400}}`),
		e.Public("POST", "/v1/track", `{"email":"d@example.net","event":"e","data":{"n":1E+999}}`),
		e.Secret("POST", "/v1/send", `{"to":"d@example.net","from":"x@herald.test","subject":"s","body":"b","data":{"n":1e400}}`),
	} {
		expectField(t, r, "data.n", "too_big")
	}
	expectField(t, e.Public("POST", "/v1/track", `{"email":"d@example.net","event":"e","data":{"a":{"list":[1,2e308]}}}`), "data.a.list.1", "too_big")
	expectField(t, e.Public("POST", "/v1/track", `{"email":"d@example.net","event":"e","data":{"n":{"value":1e400,"persistent":false}}}`), "data.n.value", "too_big")
	if n := countContacts(t, e); n != 1 {
		t.Fatalf("%d contacts", n)
	}
	expectStatus(t, e.Secret("POST", "/contacts", `{"email":"d@example.net","data":{"big":1.7e308,"tiny":1e-400}}`), 201)
}

// PATCH /segments/{id} answered a non-object condition with the bare
// {error} body that only POST /segments keeps, for the spec's sake.
func TestSegmentPatchErrorsUseTheEnvelope(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	g := createSegment(t, e, map[string]any{"name": "s", "condition": cond(filter("email", "contains", "@"))})
	for _, c := range []string{`"x"`, `[]`, `null`, `5`} {
		expectField(t, e.Secret("PATCH", "/segments/"+g.ID, `{"condition":`+c+`}`), "condition", "invalid_type")
	}
	expectError(t, e.Secret("PATCH", "/segments/"+g.ID, `{"type":"STATIC"}`), 400, "BAD_REQUEST")
	expectError(t, e.Secret("PATCH", "/segments/"+g.ID, `{"name":`), 400, "VALIDATION_ERROR")
	expectError(t, e.Secret("PATCH", "/segments/nope", `{"name":"x"}`), 404, "SEGMENT_NOT_FOUND")
}

// logSink collects log records for tests that check what was logged.
type logSink struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *logSink) Enabled(context.Context, slog.Level) bool { return true }
func (l *logSink) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r)
	return nil
}
func (l *logSink) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logSink) WithGroup(string) slog.Handler      { return l }

// at returns the messages logged at level.
func (l *logSink) at(level slog.Level) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.records {
		if r.Level == level {
			out = append(out, r.Message)
		}
	}
	return out
}

// partialRequest opens a connection and writes a request's head and part of
// its body, announcing length bytes.
func partialRequest(t *testing.T, e *webtest.Env, path, contentType string, length int, part string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", e.Server.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	head := "POST " + path + " HTTP/1.1\r\nHost: herald.test\r\nAuthorization: Bearer " + e.Project.Secret +
		"\r\nContent-Type: " + contentType + "\r\nContent-Length: " + strconv.Itoa(length) + "\r\n\r\n"
	if _, err := io.WriteString(conn, head+part); err != nil {
		t.Fatal(err)
	}
	return conn
}

// A client that goes away in the middle of its body is owed no answer, and
// its leaving is no error of ours: it was logged as ERROR with a 500.
func TestClientGoneMidBodyIsNotAnError(t *testing.T) {
	logs := &logSink{}
	e := webtest.New(t, webtest.Options{NoWorkers: true, Log: slog.New(logs)})
	for path, ct := range map[string]string{"/contacts": "application/json", "/v1/send": "application/json",
		"/contacts/import": "multipart/form-data; boundary=XYZ"} {
		conn := partialRequest(t, e, path, ct, 1000, "--XYZ\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nemail\na@exa")
		conn.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(logs.at(slog.LevelDebug)) < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if errs := logs.at(slog.LevelError); len(errs) != 0 {
		t.Fatalf("logged ERROR: %v", errs)
	}
	if d := logs.at(slog.LevelDebug); len(d) < 3 {
		t.Fatalf("want a DEBUG line per gone client, got %v", d)
	}
	if n := countContacts(t, e); n != 0 {
		t.Fatalf("%d contacts", n)
	}
}

// A body that stops arriving held the connection for the server's whole
// read timeout: it gets 408 after the body timeout, and the connection is
// closed.
func TestSlowBodyIs408(t *testing.T) {
	logs := &logSink{}
	e := webtest.New(t, webtest.Options{NoWorkers: true, Log: slog.New(logs), BodyTimeout: 300 * time.Millisecond})
	conn := partialRequest(t, e, "/contacts", "application/json", 100, `{"email":`)
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 408 || !bytes.Contains(body, []byte(`"REQUEST_TIMEOUT"`)) || !resp.Close {
		t.Fatalf("%d close=%v %s", resp.StatusCode, resp.Close, body)
	}
	if _, err := conn.Read(make([]byte, 1)); err == nil {
		t.Fatal("the connection stayed open")
	}
	if errs := logs.at(slog.LevelError); len(errs) != 0 {
		t.Fatalf("logged ERROR: %v", errs)
	}
	// A body that arrives in time is served.
	expectStatus(t, e.Secret("POST", "/contacts", map[string]any{"email": "a@example.net"}), 201)
	if n := countContacts(t, e); n != 1 {
		t.Fatalf("%d contacts", n)
	}
}

// A scheduledFor in the year 285,200,616 was accepted and then could not be
// written into the answer (JSON dates have four-digit years): a 500.
func TestScheduledForBeyondYear9999Is400(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	verifiedDomain(t, e, "herald.test")
	createContact(t, e, map[string]any{"email": "c@example.net"})
	c := createCampaign(t, e, campaignBody(nil))
	for _, when := range []string{`9000000000000000000`, `"10000-01-01T00:00:00Z"`, `"9999-12-31T23:00:00-05:00"`} {
		expectError(t, e.Secret("POST", "/campaigns/"+c.ID+"/send", `{"scheduledFor":`+when+`}`), 400, "BAD_REQUEST")
	}
	if got := getCampaign(t, e, c.ID); got.Status != "DRAFT" {
		t.Fatalf("campaign %+v", got)
	}
	expectStatus(t, e.Secret("POST", "/campaigns/"+c.ID+"/send", `{"scheduledFor":"9999-12-31T00:00:00Z"}`), 200)
}

// The manage page's form decides between subscribe and unsubscribe: a
// malformed form (action=%zz) read as "not subscribe" and unsubscribed the
// contact with a 200. Neither it nor a form cut off by a client that went
// away may change anything.
func TestManagePageActsOnlyOnAWholeForm(t *testing.T) {
	logs := &logSink{}
	e := webtest.New(t, webtest.Options{Log: slog.New(logs)})
	_, raw := sendMarketing(t, e)
	msg, _ := mail.ReadMessage(bytes.NewReader(raw))
	u, err := url.Parse(strings.Trim(strings.Split(msg.Header.Get("List-Unsubscribe"), ",")[0], "<> "))
	if err != nil {
		t.Fatal(err)
	}
	manage := strings.Replace(u.Path, "/unsubscribe/", "/manage/", 1)
	conn := partialRequest(t, e, manage, "application/x-www-form-urlencoded", 100, "action=subs")
	conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	for len(logs.at(slog.LevelDebug)) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	resp, err := http.Post(e.Server.URL+manage, "application/x-www-form-urlencoded", strings.NewReader("action=%zz"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("malformed form: %d", resp.StatusCode)
	}
	if c := contactByEmail(t, e, "ada@example.net"); c["subscribed"] != true {
		t.Fatal("a form that never arrived whole unsubscribed the contact")
	}
	if errs := logs.at(slog.LevelError); len(errs) != 0 {
		t.Fatalf("logged ERROR: %v", errs)
	}
}
