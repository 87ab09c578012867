package accounts

import (
	"testing"
	"time"

	"github.com/heraldmail/herald/clock/clocktest"
)

// Settings' zero value is the default mode, first; DisableSignups wins
// over any mode.
func TestSignupModeDefaults(t *testing.T) {
	clk := clocktest.NewFake(time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC))
	for _, tc := range []struct {
		set  Settings
		want string
	}{
		{Settings{}, SignupsFirst},
		{Settings{Signups: "bogus"}, SignupsFirst},
		{Settings{Signups: SignupsOpen}, SignupsOpen},
		{Settings{Signups: SignupsInvite}, SignupsInvite},
		{Settings{Signups: SignupsOpen, DisableSignups: true}, SignupsClosed},
	} {
		if got := New(Options{Clock: clk, Settings: tc.set}).SignupMode(); got != tc.want {
			t.Errorf("%+v: mode %q, want %q", tc.set, got, tc.want)
		}
	}
}
