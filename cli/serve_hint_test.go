package cli

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/storage"
)

func TestFirstStartNamesTheCommandThatCreatesAProject(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir() + "/my data"
	db, err := storage.Open(ctx, dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	a := app.New(app.Options{DB: db, Log: slog.New(slog.DiscardHandler)})
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	firstStartHint(ctx, a, &config{DataDir: dir, BaseURL: "https://mail.example.com/"}, log)
	if !strings.Contains(buf.String(), "https://mail.example.com/app/") {
		t.Fatalf("log %q does not name the dashboard", buf.String())
	}
	want := `herald project create --name "My project" --data-dir '` + dir + `'`
	if !strings.Contains(buf.String(), strings.ReplaceAll(want, `"`, `\"`)) {
		t.Fatalf("log %q does not name %q", buf.String(), want)
	}
	if _, err := a.Accounts.CreateProject(ctx, "Acme"); err != nil {
		t.Fatal(err)
	}
	buf.Reset()
	firstStartHint(ctx, a, &config{DataDir: dir}, log)
	if buf.Len() != 0 {
		t.Fatalf("hint with a project: %s", buf.String())
	}
}
