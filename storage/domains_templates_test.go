package storage

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestDomainRoundTrip(t *testing.T) {
	db, ctx := openTest(t), context.Background()
	for _, p := range []string{"p1", "p2"} {
		if err := db.Write(ctx, insertProject(p)); err != nil {
			t.Fatal(err)
		}
	}
	now := time.UnixMilli(1_700_000_000_000).UTC()
	d := Domain{ID: "d1", ProjectID: "p1", Name: "example.com", DKIMAlgorithm: "ed25519", DKIMSelector: "s1",
		DKIMKey: []byte("PEM"), CheckStatus: map[string]string{}, CreatedAt: now, UpdatedAt: now}
	if err := db.Write(ctx, func(tx *Tx) error { return tx.InsertDomain(ctx, d) }); err != nil {
		t.Fatal(err)
	}
	got, err := DomainByID(ctx, db.Reader(), "p1", "d1")
	if err != nil || !reflect.DeepEqual(got, d) {
		t.Fatalf("DomainByID = %+v, %v; want %+v", got, err, d)
	}
	if _, err := DomainByID(ctx, db.Reader(), "p2", "d1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("another project's domain: %v", err)
	}
	if _, err := VerifiedDomain(ctx, db.Reader(), "p1", "example.com"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a pending domain counts as verified: %v", err)
	}

	d.Verified, d.Failures, d.LastCheckedAt = true, 1, now.Add(time.Minute)
	d.CheckStatus = map[string]string{"dkim": "verified"}
	if err := db.Write(ctx, func(tx *Tx) error { return tx.UpdateDomainCheck(ctx, d) }); err != nil {
		t.Fatal(err)
	}
	if got, err = VerifiedDomain(ctx, db.Reader(), "p1", "example.com"); err != nil || !reflect.DeepEqual(got, d) {
		t.Fatalf("VerifiedDomain = %+v, %v", got, err)
	}
	if elsewhere, _ := VerifiedElsewhere(ctx, db.Reader(), "p2", "example.com"); !elsewhere {
		t.Error("VerifiedElsewhere misses p1's domain")
	}
	if elsewhere, _ := VerifiedElsewhere(ctx, db.Reader(), "p1", "example.com"); elsewhere {
		t.Error("VerifiedElsewhere counts the project itself")
	}
	if taken, _ := SelectorTaken(ctx, db.Reader(), "example.com", "s1"); !taken {
		t.Error("SelectorTaken misses s1")
	}
	page, err := DomainsAfter(ctx, db.Reader(), "", 10)
	if err != nil || len(page) != 1 {
		t.Fatalf("DomainsAfter = %v, %v", page, err)
	}
	if page, _ = DomainsAfter(ctx, db.Reader(), "d1", 10); len(page) != 0 {
		t.Fatalf("DomainsAfter(d1) = %v", page)
	}
}

func TestTemplateRoundTripAndList(t *testing.T) {
	db, ctx := openTest(t), context.Background()
	if err := db.Write(ctx, insertProject("p1")); err != nil {
		t.Fatal(err)
	}
	base := time.UnixMilli(1_700_000_000_000).UTC()
	name := "Team"
	err := db.Write(ctx, func(tx *Tx) error {
		for i, n := range []string{"alpha_1", "beta", "alpha%2"} {
			tpl := Template{ID: "t" + string(rune('a'+i)), ProjectID: "p1", Name: n, Subject: "s", Body: "b",
				From: "a@example.com", FromDomain: "example.com", Type: "MARKETING",
				CreatedAt: base.Add(time.Duration(i) * time.Second), UpdatedAt: base}
			if i == 1 {
				tpl.FromName, tpl.Type = &name, "TRANSACTIONAL"
			}
			if err := tx.InsertTemplate(ctx, tpl); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := TemplateByID(ctx, db.Reader(), "p1", "tb")
	if err != nil || got.FromName == nil || *got.FromName != "Team" || got.Description != nil || got.ReplyTo != nil {
		t.Fatalf("TemplateByID = %+v, %v", got, err)
	}
	f := TemplateFilter{ProjectID: "p1"}
	rows, err := ListTemplates(ctx, db.Reader(), f, nil, 2)
	if err != nil || len(rows) != 2 || rows[0].ID != "tc" || rows[1].ID != "tb" {
		t.Fatalf("first page = %v, %v", rows, err)
	}
	cur := TemplateCursor(rows[1])
	if rows, _ = ListTemplates(ctx, db.Reader(), f, &cur, 2); len(rows) != 1 || rows[0].ID != "ta" {
		t.Fatalf("second page = %v", rows)
	}
	for _, c := range []struct {
		f    TemplateFilter
		want int
	}{
		{TemplateFilter{ProjectID: "p1", Search: "ALPHA"}, 2},
		{TemplateFilter{ProjectID: "p1", Search: "_"}, 1}, // LIKE wildcards match literally
		{TemplateFilter{ProjectID: "p1", Search: "%"}, 1},
		{TemplateFilter{ProjectID: "p1", Type: "TRANSACTIONAL"}, 1},
		{TemplateFilter{ProjectID: "p2"}, 0},
	} {
		if n, err := CountTemplates(ctx, db.Reader(), c.f); err != nil || n != c.want {
			t.Errorf("CountTemplates(%+v) = %d, %v; want %d", c.f, n, err, c.want)
		}
	}
	if n, _ := CountTemplatesFromDomain(ctx, db.Reader(), "p1", "example.com"); n != 3 {
		t.Errorf("CountTemplatesFromDomain = %d", n)
	}
	got.Name, got.FromName = "renamed", nil
	err = db.Write(ctx, func(tx *Tx) error {
		if err := tx.UpdateTemplate(ctx, got); err != nil {
			return err
		}
		_, err := tx.DeleteTemplate(ctx, "p1", "ta")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ = TemplateByID(ctx, db.Reader(), "p1", "tb"); got.Name != "renamed" || got.FromName != nil {
		t.Errorf("after update: %+v", got)
	}
	if _, err := TemplateByID(ctx, db.Reader(), "p1", "ta"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleted template: %v", err)
	}
}
