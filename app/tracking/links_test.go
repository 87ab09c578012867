package tracking

import (
	"context"
	"encoding/base64"
	"errors"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/storage"
)

func tokenApp(t *testing.T) *Service {
	t.Helper()
	db, err := storage.Open(context.Background(), t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return newTestService(t, db, testClock())
}

func TestEmailTokensRoundTripAndStayShort(t *testing.T) {
	ctx := context.Background()
	a := tokenApp(t)
	id := ids.New()
	for _, link := range []int{0, 1, 127, 128, 100000} {
		tok, err := a.emailToken(ctx, tokenClick, id, link)
		if err != nil {
			t.Fatal(err)
		}
		// A click URL must stay short whatever the target: it appears
		// twice per link in every tracked message.
		if link < 128 && len(tok) > 40 {
			t.Errorf("click token %q is %d characters", tok, len(tok))
		}
		gotID, gotLink, err := a.openEmailToken(ctx, tokenClick, tok)
		if err != nil || gotID != id || gotLink != link {
			t.Errorf("click %d: got %q %d %v", link, gotID, gotLink, err)
		}
		if _, _, err := a.openEmailToken(ctx, tokenOpen, tok); err != ErrBadToken {
			t.Errorf("a click token opened as an open token: %v", err)
		}
	}
	open, _ := a.emailToken(ctx, tokenOpen, id, 0)
	if got, _, err := a.openEmailToken(ctx, tokenOpen, open); err != nil || got != id {
		t.Errorf("open: %q %v", got, err)
	}
	if _, _, err := a.openEmailToken(ctx, tokenClick, open); err != ErrBadToken {
		t.Errorf("an open token opened as a click token: %v", err)
	}
}

func TestTokensRefuseTampering(t *testing.T) {
	ctx := context.Background()
	a := tokenApp(t)
	tok, _ := a.emailToken(ctx, tokenClick, ids.New(), 3)
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	for i := range raw {
		bad := append([]byte(nil), raw...)
		bad[i] ^= 1
		if _, _, err := a.openEmailToken(ctx, tokenClick, base64.RawURLEncoding.EncodeToString(bad)); err != ErrBadToken {
			t.Errorf("byte %d flipped: %v", i, err)
		}
	}
	for _, s := range []string{"", "x", "!!!!", tok[:len(tok)-1], tok + "A", base64.RawURLEncoding.EncodeToString(raw[:12])} {
		if _, _, err := a.openEmailToken(ctx, tokenClick, s); err != ErrBadToken {
			t.Errorf("%q: %v", s, err)
		}
	}
	// Another installation's key signs different tokens.
	other := tokenApp(t)
	if _, _, err := other.openEmailToken(ctx, tokenClick, tok); err != ErrBadToken {
		t.Errorf("another installation opened the token: %v", err)
	}
}

func TestContactTokensCarryAnyID(t *testing.T) {
	ctx := context.Background()
	a := tokenApp(t)
	for _, ids := range [][2]string{{ids.New(), ids.New()}, {"project-1", "c-0000001"}, {ids.New(), "C0FFEE00-0000-7000-8000-000000000000"}} {
		links, err := a.ContactLinks(ctx, ids[0], ids[1])
		if err != nil {
			t.Fatal(err)
		}
		tok := links.Unsubscribe[len("https://herald.example/unsubscribe/"):]
		payload, err := a.openToken(ctx, tokenContact, tok)
		if err != nil {
			t.Fatal(err)
		}
		p, rest, ok1 := cutID(payload)
		c, rest, ok2 := cutID(rest)
		if !ok1 || !ok2 || len(rest) != 0 || p != ids[0] || c != ids[1] {
			t.Errorf("%v: got %q %q %v %v %d", ids, p, c, ok1, ok2, len(rest))
		}
	}
	if _, err := a.ContactLinks(ctx, ids.New(), ""); err == nil {
		t.Error("an empty contact id made a link")
	}
}

// A click redirects only to a link stored with its email.
func TestClickRedirectsOnlyToStoredLinks(t *testing.T) {
	ctx := context.Background()
	a := tokenApp(t)
	p, err := a.accounts.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	e := storage.Email{ID: ids.New(), ProjectID: p.ID, MessageID: "<m@herald.example>", Sender: "a@herald.example",
		Recipient: "b@example.net", Status: storage.EmailDelivered, Links: []string{"https://a.example/x", "https://b.example/?q=1&r=2"},
		CreatedAt: a.now()}
	if err := a.db.Write(ctx, func(tx *storage.Tx) error { return tx.InsertEmail(ctx, e) }); err != nil {
		t.Fatal(err)
	}
	for i, want := range e.Links {
		tok, _ := a.emailToken(ctx, tokenClick, e.ID, i)
		if got, err := a.RecordClick(ctx, tok); err != nil || got != want {
			t.Errorf("link %d: %q %v", i, got, err)
		}
	}
	beyond, _ := a.emailToken(ctx, tokenClick, e.ID, 2)
	unknown, _ := a.emailToken(ctx, tokenClick, ids.New(), 0)
	for _, tok := range []string{beyond, unknown} {
		var ae *apierr.Error
		if got, err := a.RecordClick(ctx, tok); !errors.As(err, &ae) || ae.Kind != apierr.KindNotFound || got != "" {
			t.Errorf("%s: %q %v, want not found", tok, got, err)
		}
	}
}

// The first link opened after a start loads the signing key; a one-click
// unsubscribe POST that does so must not wait on its own write.
func TestUnsubscribeFirstAfterStart(t *testing.T) {
	ctx := context.Background()
	db, err := storage.Open(ctx, t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	clk := testClock()
	before := newTestService(t, db, clk)
	p, err := before.accounts.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	email := "ada@example.net"
	c, err := before.audience.UpsertContact(ctx, p.ID, audience.UpsertContactInput{Email: &email})
	if err != nil {
		t.Fatal(err)
	}
	links, err := before.ContactLinks(ctx, p.ID, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	after := newTestService(t, db, clk) // a restarted process: the key is not loaded yet
	done := make(chan error, 1)
	go func() {
		_, err := after.SetSubscriptionByToken(ctx, links.Unsubscribe[len("https://herald.example/unsubscribe/"):], false)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the unsubscribe hung")
	}
}
