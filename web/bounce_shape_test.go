package web_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/heraldmail/herald/storage"
)

// TestBounceEventsHaveOneShape: email.bounce carries the same fields
// whether the recipient's server refused during delivery or a DSN came
// back later (docs/decisions.md).
func TestBounceEventsHaveOneShape(t *testing.T) {
	e := newInboundEnv(t)

	// Synchronous: refused during delivery.
	e.Sink.Reject("gone@example.net")
	sent := sendOK(t, e.Env, map[string]any{"to": "gone@example.net", "from": "hello@herald.test",
		"subject": "s", "body": "b", "subscribed": true})[0].(map[string]any)
	waitStatus(t, e.Env, sent["email"].(string), storage.EmailBounced)
	sync := eventNamed(t, contactEvents(t, e.Env, sent["contact"].(map[string]any)["id"].(string)), "email.bounce").Data

	// Asynchronous: a DSN mailed to the return path.
	d := e.sendDelivered(t, "later@example.net")
	if err := e.mailTo(t, d.returnPath, dsnFor(d, "failed", "5.1.1", "550 5.1.1 <later@example.net>: user unknown")); err != nil {
		t.Fatal(err)
	}
	async := eventNamed(t, contactEvents(t, e.Env, d.contactID), "email.bounce").Data

	if keys(sync) != keys(async) {
		t.Fatalf("two shapes:\nsync  %s\nasync %s", keys(sync), keys(async))
	}
	for _, want := range []struct {
		data   map[string]any
		source string
	}{{sync, "smtp"}, {async, "dsn"}} {
		d := want.data
		if d["source"] != want.source || d["permanent"] != true || d["code"] != float64(550) || d["status"] != "5.1.1" ||
			d["diagnosticCode"] == "" {
			t.Errorf("%s bounce data: %v", want.source, d)
		}
	}
}

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}
