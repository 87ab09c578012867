package web_test

import (
	"reflect"
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

type verifyJSON struct {
	Email           string   `json:"email"`
	Valid           bool     `json:"valid"`
	IsDisposable    bool     `json:"isDisposable"`
	IsAlias         bool     `json:"isAlias"`
	IsTypo          bool     `json:"isTypo"`
	IsPlusAddressed bool     `json:"isPlusAddressed"`
	IsPersonalEmail bool     `json:"isPersonalEmail"`
	IsRole          bool     `json:"isRole"`
	DomainExists    bool     `json:"domainExists"`
	HasWebsite      bool     `json:"hasWebsite"`
	HasMxRecords    bool     `json:"hasMxRecords"`
	SuggestedEmail  string   `json:"suggestedEmail"`
	Reasons         []string `json:"reasons"`
}

func verifyEmail(t *testing.T, e *webtest.Env, email string) verifyJSON {
	t.Helper()
	r := e.Secret("POST", "/v1/verify", map[string]any{"email": email})
	expectStatus(t, r, 200)
	var res struct {
		Success bool       `json:"success"`
		Data    verifyJSON `json:"data"`
	}
	r.Decode(t, &res)
	if !res.Success || res.Data.Reasons == nil {
		t.Fatalf("verify %s", r.Body)
	}
	return res.Data
}

func TestVerifyThroughTheAPI(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	e.DNS.Add(t,
		"shop.example. 300 IN MX 10 mx.shop.example.",
		"shop.example. 300 IN A 192.0.2.1",
		"gmail.com. 300 IN MX 5 gmail-smtp-in.l.google.com.",
		"gmail.com. 300 IN A 192.0.2.2",
		"mailinator.com. 300 IN MX 10 mail.mailinator.com.",
	)
	got := verifyEmail(t, e, " Jane+news@Shop.Example ")
	want := verifyJSON{Email: "jane+news@shop.example", Valid: true, IsPlusAddressed: true,
		DomainExists: true, HasWebsite: true, HasMxRecords: true, Reasons: []string{"Email appears to be valid"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if r := verifyEmail(t, e, "info@gmail.com"); !r.IsPersonalEmail || !r.IsRole || !r.Valid {
		t.Fatalf("info@gmail.com %+v", r)
	}
	if r := verifyEmail(t, e, "a@mailinator.com"); !r.IsDisposable || r.Valid || len(r.Reasons) == 0 {
		t.Fatalf("disposable %+v", r)
	}
	if r := verifyEmail(t, e, "a@gmial.com"); !r.IsTypo || r.SuggestedEmail != "a@gmail.com" || r.Valid {
		t.Fatalf("typo %+v", r)
	}
	if r := verifyEmail(t, e, "a@nowhere.example"); r.DomainExists || r.Valid || len(r.Reasons) == 0 {
		t.Fatalf("nowhere %+v", r)
	}

	expectField(t, e.Secret("POST", "/v1/verify", map[string]any{}), "email", "invalid_type")
	expectField(t, e.Secret("POST", "/v1/verify", map[string]any{"email": "nope"}), "email", "invalid_string")
	expectField(t, e.Secret("POST", "/v1/verify", map[string]any{"email": 3}), "email", "invalid_type")
	// Verifying is not tracking: it creates no contact.
	if n := countContacts(t, e); n != 0 {
		t.Fatalf("%d contacts", n)
	}
}
