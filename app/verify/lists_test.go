package verify

import "testing"

func mustLists(t testing.TB) *lists {
	t.Helper()
	l, err := loadLists()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestListSizes(t *testing.T) {
	l := mustLists(t)
	for name, c := range map[string]struct{ got, min int }{
		"disposable": {len(l.disposable), 100000},
		"alias":      {len(l.alias), 20},
		"personal":   {len(l.personal), 300},
		"role":       {len(l.role), 100},
		"typos":      {len(l.typos), 100},
		"targets":    {len(l.targets), 10},
	} {
		if c.got < c.min {
			t.Errorf("%s list has %d entries, want at least %d", name, c.got, c.min)
		}
	}
}

// Every list entry must be a domain an address can have, in the A-label
// form the lookups use, or it could never match.
func TestListEntriesAreHostnames(t *testing.T) {
	l := mustLists(t)
	check := func(list, d string) {
		a, err := parseAddress("x@" + d)
		if err != nil || a.domain != d {
			t.Errorf("%s: entry %q is not a normalised host name (%v)", list, d, err)
		}
	}
	for _, s := range []struct {
		name string
		set  set
	}{{"disposable", l.disposable}, {"alias", l.alias}, {"personal", l.personal}, {"lookalikes", l.lookalike}} {
		for d := range s.set {
			check(s.name, d)
		}
	}
	for from, to := range l.typos {
		check("typos", from)
		check("typos", to)
	}
	for _, d := range l.targets {
		check("typo_targets", d)
	}
}

func TestListConsistency(t *testing.T) {
	l := mustLists(t)
	for from, to := range l.typos {
		if l.isKnown(from) {
			t.Errorf("typos.txt: %s is a known domain", from)
		}
		if !l.personal.has(to) {
			t.Errorf("typos.txt: %s -> %s, which is not in personal.txt", from, to)
		}
	}
	for _, d := range l.targets {
		if !l.personal.has(d) {
			t.Errorf("typo_targets.txt: %s is not in personal.txt", d)
		}
	}
	for d := range l.alias {
		if l.personal.has(d) {
			t.Errorf("%s is both alias and personal", d)
		}
	}
}

func TestDomainFlags(t *testing.T) {
	l := mustLists(t)
	cases := []struct {
		domain                      string
		disposable, alias, personal bool
	}{
		{"mailinator.com", true, false, false},
		{"inbox.mailinator.com", true, false, false},
		{"yopmail.com", true, false, false},
		{"guerrillamail.com", true, false, false},
		{"mailinator.com.example", false, false, false},
		{"privaterelay.appleid.com", false, true, false},
		{"appleid.com", false, false, false},
		{"duck.com", false, true, false},
		{"simplelogin.com", false, true, false},
		{"aleeas.com", false, true, false},
		{"mozmail.com", false, true, false},
		{"relay.firefox.com", false, true, false},
		{"addy.io", false, true, false},
		{"alice.anonaddy.com", false, true, false}, // listed disposable too: alias wins
		{"33mail.com", false, true, false},
		{"gmail.com", false, false, true},
		{"mail.gmail.com", false, false, false},
		{"yahoo.co.uk", false, false, true},
		{"proton.me", false, false, true},
		{"web.de", false, false, true},
		{"21cn.com", false, false, true}, // listed disposable too: personal wins
		{"example.com", false, false, false},
	}
	for _, c := range cases {
		got := [3]bool{l.isDisposable(c.domain), l.isAlias(c.domain), l.isPersonal(c.domain)}
		want := [3]bool{c.disposable, c.alias, c.personal}
		if got != want {
			t.Errorf("%s: disposable, alias, personal = %v, want %v", c.domain, got, want)
		}
	}
}

func TestRoleAndPlus(t *testing.T) {
	l := mustLists(t)
	cases := []struct {
		local      string
		role, plus bool
	}{
		{"support", true, false},
		{"support+eu", true, true},
		{"no-reply", true, false},
		{"noreply", true, false},
		{"postmaster", true, false},
		{"Info", true, false},
		{"john", false, false},
		{"john+news", false, true},
		{"john+a+b", false, true},
		{"+news", false, false},
		{"john+", false, false},
		{"john++", false, false},
		{"supportive", false, false},
	}
	for _, c := range cases {
		if got := l.isRole(c.local); got != c.role {
			t.Errorf("isRole(%q) = %v", c.local, got)
		}
		if got := isPlusAddressed(c.local); got != c.plus {
			t.Errorf("isPlusAddressed(%q) = %v", c.local, got)
		}
	}
}

func TestEntriesSkipsComments(t *testing.T) {
	got := entries("# header\n\nA.com\n  b.com  # trailing\n#c.com\nd.com")
	want := []string{"a.com", "b.com", "d.com"}
	if len(got) != len(want) {
		t.Fatalf("got %q", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %q", got)
		}
	}
	if _, err := parsePairs("a.com\n"); err == nil {
		t.Error("parsePairs accepted a line with one field")
	}
}
