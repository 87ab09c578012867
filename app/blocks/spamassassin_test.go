package blocks_test

import (
	"bytes"
	"context"
	"net/mail"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/blocks"
	"github.com/heraldmail/herald/app/message"
	"github.com/heraldmail/herald/app/render"
)

// The SpamAssassin harness is web's (web/spamassassin_test.go): one run of
// `spamassassin -L -t --mbox` over all messages, local rules only, reports
// matched to messages by Message-ID.

var saDetail = regexp.MustCompile(`(?m)^\s*(-?[\d.]+) ([A-Z0-9_]+)\s`)

func spamAssassin(t *testing.T, msgs ...[]byte) []map[string]float64 {
	t.Helper()
	const sep = "From herald@herald.test Thu Jan 15 12:00:00 2026\n"
	var mbox bytes.Buffer
	index := map[string]int{}
	for i, m := range msgs {
		index[messageID(t, m)] = i
		mbox.WriteString(sep)
		mbox.Write(bytes.ReplaceAll(m, []byte("\r\n"), []byte("\n")))
		mbox.WriteString("\n")
	}
	cmd := exec.Command("spamassassin", "-L", "-t", "--mbox")
	cmd.Stdin = &mbox
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("spamassassin: %v", err)
	}
	all := make([]map[string]float64, len(msgs))
	for _, scored := range bytes.Split(out, []byte(sep)) {
		head, details, ok := bytes.Cut(scored, []byte("Content analysis details:"))
		if !ok {
			continue
		}
		i, known := index[messageID(t, head)]
		if !known || all[i] != nil {
			t.Fatalf("a report for no message or twice for one:\n%s", scored)
		}
		all[i] = map[string]float64{}
		for _, m := range saDetail.FindAllSubmatch(details, -1) {
			pts, _ := strconv.ParseFloat(string(m[1]), 64)
			all[i][string(m[2])] = pts
		}
	}
	for i, rules := range all {
		if rules == nil {
			t.Fatalf("no report for message %d:\n%s", i, out)
		}
	}
	return all
}

func messageID(t *testing.T, raw []byte) string {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil || msg.Header.Get("Message-Id") == "" {
		t.Fatalf("no Message-ID (%v): %.300s", err, raw)
	}
	return msg.Header.Get("Message-Id")
}

func requireSpamAssassin(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("spamassassin"); err != nil {
		if os.Getenv("HERALD_REQUIRE_SPAMASSASSIN") != "" {
			t.Fatalf("HERALD_REQUIRE_SPAMASSASSIN is set but spamassassin is not on PATH: %v", err)
		}
		t.Skip("spamassassin not installed (apt-get install spamassassin; CI sets HERALD_REQUIRE_SPAMASSASSIN=1)")
	}
}

// campaignMessage is the message Herald sends for a campaign whose body is
// the document's rendering, with tracking disabled: the subject, the HTML
// and the text rendered by app/render for one contact (its unsubscribe
// link filled in), built by app/message with the one-click
// List-Unsubscribe pair.
func campaignMessage(t *testing.T, name string, d blocks.Document) []byte {
	t.Helper()
	const unsubscribe = "https://herald.test/unsubscribe/c2f1a7d09e4b4f0c8a6d3e5b7f9a1c2e"
	subject := `Spring news for {{ name ?? "you" }}`
	o := blocks.Options{Lang: "en", Title: subject}
	vars := map[string]any{"name": "Ada", "email": "ada@example.net", "unsubscribeUrl": unsubscribe}
	r := render.NewRenderer()
	var parts [3]string
	for i, src := range []struct {
		tpl  string
		mode render.Mode
	}{{subject, render.Header}, {blocks.Render(d, o), render.HTML}, {blocks.RenderText(d, o), render.Text}} {
		out, err := r.Render(context.Background(), src.tpl, vars, src.mode)
		if err != nil {
			t.Fatalf("%s: render: %v", name, err)
		}
		parts[i] = out
	}
	raw, err := message.Build(message.Message{
		From:            message.Address{Name: "Acme Shop", Email: "news@herald.test"},
		To:              []message.Address{{Email: "ada@example.net"}},
		Subject:         parts[0],
		HTML:            parts[1],
		Text:            parts[2],
		MessageID:       "<blocks-" + name + "@herald.test>",
		Date:            time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC),
		ListUnsubscribe: unsubscribe,
	})
	if err != nil {
		t.Fatalf("%s: build: %v", name, err)
	}
	return raw
}

// Every standard block alone and all of them together score under 0.5
// with SpamAssassin's default rules (the marketing contract).
func TestStandardBlocksSpamAssassin(t *testing.T) {
	requireSpamAssassin(t)
	names, docs := standardDocuments(uploadSrc)
	msgs := make([][]byte, len(docs))
	for i, d := range docs {
		mustValid(t, d)
		msgs[i] = campaignMessage(t, names[i], d)
	}
	for i, rules := range spamAssassin(t, msgs...) {
		total := 0.0
		for _, pts := range rules {
			total += pts
		}
		t.Logf("%s: %.3f %v", names[i], total, rules)
		if total >= 0.5 {
			t.Errorf("%s: %.3f points, want under 0.5: %v", names[i], total, rules)
		}
	}
}
