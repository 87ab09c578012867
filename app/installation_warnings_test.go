package app_test

import (
	"context"
	"slices"
	"testing"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/apptest"
)

// The administrator's warnings: platform mail's (accounts), then the
// configuration's, then the delivery checks' hook, read at each call.
func TestInstallationWarningsTakeTheDeliveryChecksHook(t *testing.T) {
	checks := []string{"HERALD_PUBLIC_IP 192.0.2.1 has no PTR record"}
	e := apptest.New(t, apptest.Options{Offline: true, NoWorkers: true, NoProject: true, App: func(o *app.Options) {
		o.Warnings = []string{"configured"}
		o.DeliveryWarnings = func(context.Context) []string { return checks }
	}})
	got := e.App.Accounts.InstallationWarnings(context.Background())
	want := []string{accounts.WarningNoSystemMail, "configured", checks[0]}
	if !slices.Equal(got, want) {
		t.Fatalf("warnings %q, want %q", got, want)
	}
	checks = nil // fixed meanwhile
	if got := e.App.Accounts.InstallationWarnings(context.Background()); len(got) != 2 {
		t.Fatalf("warnings after the fix %q", got)
	}
}
