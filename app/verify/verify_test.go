package verify

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// flags is the boolean part of a Result, for compact table tests.
type flags struct {
	valid, disposable, alias, typo, plus, personal, role, exists, website, mx bool
}

func flagsOf(r Result) flags {
	return flags{r.Valid, r.IsDisposable, r.IsAlias, r.IsTypo, r.IsPlusAddressed,
		r.IsPersonalEmail, r.IsRole, r.DomainExists, r.HasWebsite, r.HasMxRecords}
}

// zone is the DNS data every case of TestVerify runs against.
func zone(t *testing.T, f *fixture) {
	for _, d := range []string{"good.example", "gmail.com", "mailinator.com", "sub.mailinator.com",
		"duck.com", "privaterelay.appleid.com", "alice.anonaddy.com", "gmai.com", "xn--bcher-kva.example"} {
		f.mailDomain(t, d)
	}
	f.srv.Add(t,
		"mxonly.example. 300 IN MX 10 mx.mxonly.example.",
		"wwwsite.example. 300 IN MX 10 mx.wwwsite.example.",
		"www.wwwsite.example. 300 IN A 192.0.2.20",
		"implicit.example. 300 IN A 192.0.2.30",
		"implicit6.example. 300 IN AAAA 2001:db8::30",
		"nullmx.example. 300 IN MX 0 .",
		"nullmx.example. 300 IN A 192.0.2.40",
		"nsonly.example. 300 IN NS ns1.elsewhere.example.",
		"flaky.example. 300 IN MX 10 mx.flaky.example.",
		"www.flaky.example. 300 IN A 192.0.2.50",
	)
	f.srv.SetRcode("servfail.example", dns.RcodeServerFailure)
	f.srv.SetRcode("www.servfail.example", dns.RcodeServerFailure)
	f.srv.SetRcode("flaky.example", dns.RcodeServerFailure)
}

func TestVerify(t *testing.T) {
	f := newFixture(t, Options{})
	zone(t, f)
	cases := []struct {
		email   string
		want    flags
		reasons []string // each must appear in some reason
		absent  []string // none may appear in any reason
	}{
		{"john@good.example", flags{valid: true, exists: true, website: true, mx: true}, nil, nil},
		{"  John@Good.Example ", flags{valid: true, exists: true, website: true, mx: true}, nil, nil},
		{"john@mxonly.example", flags{valid: true, exists: true, mx: true}, nil, nil},
		{"john@wwwsite.example", flags{valid: true, exists: true, website: true, mx: true}, nil, nil},
		{"john@implicit.example", flags{valid: true, exists: true, website: true}, []string{"implicit MX"}, nil},
		{"john@implicit6.example", flags{valid: true, exists: true, website: true}, []string{"implicit MX"}, nil},
		{"john@nullmx.example", flags{exists: true, website: true}, []string{"does not accept email"}, nil},
		{"john@nsonly.example", flags{exists: true}, []string{"no MX records"}, []string{"does not exist"}},
		{"john@nowhere.example", flags{}, []string{"Domain does not exist"}, []string{"temporarily"}},
		{"john@servfail.example", flags{}, []string{"DNS lookup failed temporarily (MX, A/AAAA, www A/AAAA, NS)"}, []string{"does not exist", "no MX"}},
		{"john@flaky.example", flags{exists: true, website: true}, []string{"DNS lookup failed temporarily (MX, A/AAAA)"}, []string{"does not exist", ", NS)"}},
		{"john@mailinator.com", flags{disposable: true, exists: true, website: true, mx: true}, []string{"disposable"}, nil},
		{"john@sub.mailinator.com", flags{disposable: true, exists: true, website: true, mx: true}, []string{"disposable"}, nil},
		{"john@duck.com", flags{valid: true, alias: true, exists: true, website: true, mx: true}, nil, nil},
		{"x@privaterelay.appleid.com", flags{valid: true, alias: true, exists: true, website: true, mx: true}, nil, nil},
		{"x@alice.anonaddy.com", flags{valid: true, alias: true, exists: true, website: true, mx: true}, nil, []string{"disposable"}},
		{"john@gmail.com", flags{valid: true, personal: true, exists: true, website: true, mx: true}, nil, nil},
		{"john+news@gmail.com", flags{valid: true, plus: true, personal: true, exists: true, website: true, mx: true}, nil, nil},
		{"support@good.example", flags{valid: true, role: true, exists: true, website: true, mx: true}, []string{"Role address (support@)"}, nil},
		{"no-reply+x@good.example", flags{valid: true, role: true, plus: true, exists: true, website: true, mx: true}, []string{"Role address (no-reply@)"}, nil},
		{"john@gmial.com", flags{typo: true}, []string{"Possible typo: did you mean john@gmail.com?", "does not exist"}, nil},
		{"john@gmaio.com", flags{typo: true}, []string{"did you mean john@gmail.com?"}, nil},
		{"john@gmai.com", flags{typo: true, disposable: true, exists: true, website: true, mx: true}, []string{"did you mean john@gmail.com?", "disposable"}, nil},
		{"john@bücher.example", flags{valid: true, exists: true, website: true, mx: true}, nil, nil},
		{"not an email", flags{}, []string{"Email address syntax is invalid: missing @"}, nil},
		{"john@@gmail.com", flags{}, []string{"Email address syntax is invalid"}, nil},
	}
	for _, c := range cases {
		t.Run(c.email, func(t *testing.T) {
			r := f.v.Verify(context.Background(), c.email)
			if got := flagsOf(r); got != c.want {
				t.Errorf("flags = %+v\nwant    %+v\nreasons %q", got, c.want, r.Reasons)
			}
			if r.Reasons == nil {
				t.Error("Reasons is nil")
			}
			for _, want := range c.reasons {
				if !slices.ContainsFunc(r.Reasons, func(s string) bool { return strings.Contains(s, want) }) {
					t.Errorf("reasons %q lack %q", r.Reasons, want)
				}
			}
			for _, bad := range c.absent {
				if slices.ContainsFunc(r.Reasons, func(s string) bool { return strings.Contains(s, bad) }) {
					t.Errorf("reasons %q contain %q", r.Reasons, bad)
				}
			}
		})
	}
}

func TestVerifyCleanResult(t *testing.T) {
	f := newFixture(t, Options{})
	f.mailDomain(t, "good.example")
	r := f.v.Verify(context.Background(), " John@Good.Example")
	if r.Email != "john@good.example" || !r.Valid || !slices.Equal(r.Reasons, []string{ValidReason}) || r.SuggestedEmail != "" {
		t.Errorf("got %+v", r)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if !strings.Contains(s, `"reasons":["Email appears to be valid"]`) || strings.Contains(s, "suggestedEmail") {
		t.Errorf("JSON %s: want the valid reason and no suggestedEmail", s)
	}
}

func TestVerifyTypoSuggestionInJSON(t *testing.T) {
	f := newFixture(t, Options{})
	r := f.v.Verify(context.Background(), "jane.doe@hotmial.com")
	if r.SuggestedEmail != "jane.doe@hotmail.com" {
		t.Fatalf("suggestedEmail = %q", r.SuggestedEmail)
	}
	b, _ := json.Marshal(r)
	if !strings.Contains(string(b), `"suggestedEmail":"jane.doe@hotmail.com"`) {
		t.Errorf("JSON %s", b)
	}
}

func TestVerifyInvalidSyntaxMakesNoLookup(t *testing.T) {
	f := newFixture(t, Options{})
	for _, email := range []string{"", "john", "john@", "john@localhost", "jo hn@example.com"} {
		r := f.v.Verify(context.Background(), email)
		if r.Valid || len(r.Reasons) != 1 || !strings.HasPrefix(r.Reasons[0], "Email address syntax is invalid") {
			t.Errorf("Verify(%q) = %+v", email, r)
		}
	}
	if n := f.dns.calls.Load(); n != 0 {
		t.Errorf("%d DNS queries for invalid addresses, want 0", n)
	}
}

func TestNewRequiresDNS(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("New without DNS did not panic")
		}
	}()
	New(Options{})
}
