package cli

import (
	"context"
	"log/slog"
	"strings"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/web/dashboard"
)

// firstStartHint tells a new operator what to do next: with no project
// yet, the exact command that creates one, for this data directory.
func firstStartHint(ctx context.Context, a *app.App, c *config, log *slog.Logger) {
	ps, err := a.Accounts.ListProjects(ctx)
	if err != nil || len(ps) > 0 {
		return
	}
	cmd := "herald project create --name \"My project\""
	if c.DataDir != packagedDataDir {
		cmd += " --data-dir " + shellQuote(c.DataDir)
	} else {
		cmd = "sudo -u herald " + cmd
	}
	url := strings.TrimSuffix(c.BaseURL, "/") + dashboard.Prefix
	log.Info("no project yet: create one (it prints the API keys) with: "+cmd+", or sign up in the dashboard at "+url,
		"command", cmd, "dashboard", url)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
