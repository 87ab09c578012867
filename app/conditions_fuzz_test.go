package app_test

import (
	"context"
	"slices"
	"testing"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// FuzzConditions runs the condition compiler on any input, over the
// contacts of the operator tests: parsing and checking fail only with a
// client's error (a 4xx), and a tree they accept compiles to SQL that
// SQLite runs, selecting the same contacts as a set and one by one.
// Seeds: testdata/fuzz/FuzzConditions.
func FuzzConditions(f *testing.F) {
	e := webtest.New(f, webtest.Options{NoWorkers: true})
	ids := seed(f, e, fixture)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := audience.ParseCondition(raw, "condition")
		if err != nil {
			clientError(t, raw, err)
			return
		}
		if err := e.App.Audience.CheckCondition(ctx, e.DB.Reader(), e.Project.ID, c, "condition", ""); err != nil {
			clientError(t, raw, err)
			return
		}
		aud, err := e.App.Audience.ConditionAudience(ctx, e.DB.Reader(), e.Project.ID, c)
		if err != nil {
			t.Fatalf("%s: compile: %v", raw, err)
		}
		set, err := storage.AudienceIDs(ctx, e.DB.Reader(), aud)
		if err != nil {
			t.Fatalf("%s: SQL: %v", raw, err)
		}
		for _, id := range ids {
			has, err := e.App.Audience.ContactMatches(ctx, e.Project.ID, id, c)
			if err != nil {
				t.Fatalf("%s: one contact: %v", raw, err)
			}
			if has != slices.Contains(set, id) {
				t.Fatalf("%s: contact %s is %v one by one, %v in the set %v", raw, id, has, !has, set)
			}
		}
	})
}

// clientError fails unless err is one the API shows as a 4xx.
func clientError(t *testing.T, raw []byte, err error) {
	t.Helper()
	if _, ok := apierr.AsError(err); !ok {
		t.Fatalf("%s: not a client error: %v", raw, err)
	}
}
