package tracking

import (
	"log/slog"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/clock/clocktest"
	"github.com/heraldmail/herald/storage"
)

// newTestService builds tracking over db with the services below it, as
// app.New would (tests inside a domain package cannot import app).
func newTestService(t *testing.T, db *storage.DB, clk clock.Clock) *Service {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	events := event.New(event.Options{})
	var s *Service
	acc := accounts.New(accounts.Options{DB: db, Clock: clk, Log: log, BaseURL: "https://herald.example",
		ProjectDataRemoved: func(tx *storage.Tx) { s.ForgetRemoved(tx) }})
	aud := audience.New(audience.Options{DB: db, Clock: clk, Log: log, Events: events, Accounts: acc,
		ContactsRemoved: func(tx *storage.Tx) { s.ForgetRemoved(tx) }})
	s = New(Options{DB: db, Clock: clk, Log: log, BaseURL: "https://herald.example", Events: events,
		Accounts: acc, Audience: aud})
	return s
}

func testClock() *clocktest.Fake {
	return clocktest.NewFake(time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC))
}
