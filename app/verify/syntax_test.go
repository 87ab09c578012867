package verify

import (
	"strings"
	"testing"
)

func TestValidSyntaxAccepts(t *testing.T) {
	for _, email := range []string{
		"user@example.com",
		"first.last@example.com",
		"user+tag@example.co.uk",
		"o'brien@example.ie",
		"a!#$%&'*+-/=?^_`{|}~z@example.com",
		"x@a.io",
		"UPPER@Example.COM",
		"user@sub-domain.example.org",
		"user@xn--bcher-kva.example",
		"user@bücher.example",
		"user@例え.テスト",
		"user@123.example",
		strings.Repeat("a", 64) + "@example.com",
		strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 57) + ".com",
	} {
		if !ValidSyntax(email) {
			_, err := parseAddress(email)
			t.Errorf("ValidSyntax(%q) = false (%v), want true", email, err)
		}
	}
}

func TestValidSyntaxRejects(t *testing.T) {
	cases := []struct{ email, why string }{
		{"", "missing @"},
		{"userexample.com", "missing @"},
		{"a@b@example.com", "more than one @"},
		{"@example.com", "local part is empty"},
		{"user@", "domain is empty"},
		{strings.Repeat("a", 65) + "@example.com", "local part is longer than 64"},
		{".user@example.com", "starts or ends with a dot"},
		{"user.@example.com", "starts or ends with a dot"},
		{"us..er@example.com", "consecutive dots"},
		{"us er@example.com", "whitespace"},
		{"user@exa mple.com", "whitespace"},
		{"user@example.com\n", "whitespace"},
		{"\"quoted\"@example.com", "local part contains"},
		{"us(comment)er@example.com", "local part contains"},
		{"jörg@example.com", "non-ASCII"},
		{"user@localhost", "no dot"},
		{"user@example..com", "consecutive dots"},
		{"user@.example.com", "starts or ends with a dot"},
		{"user@example.com.", "starts or ends with a dot"},
		{"user@[192.0.2.1]", "IP address literals"},
		{"user@192.0.2.1", "numeric"},
		{"user@example.c", "too short"},
		{"user@-example.com", "not a valid host name"},
		{"user@example-.com", "not a valid host name"},
		{"user@exa_mple.com", "not a valid host name"},
		{"user@exa!mple.com", "not a valid host name"},
		{"user@xn--zz.example", "not a valid host name"},
		{"user@" + strings.Repeat("a", 64) + ".com", "label is longer than 63"},
		{"user@" + strings.Repeat("a.", 127) + "com", "domain is longer than 253"},
		{strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 58) + ".com", "longer than 254"},
		{strings.Repeat("a", 2000) + "@example.com", "too long"},
	}
	for _, c := range cases {
		_, err := parseAddress(c.email)
		if err == nil {
			t.Errorf("parseAddress(%.40q) accepted, want error containing %q", c.email, c.why)
			continue
		}
		if !strings.Contains(err.Error(), c.why) {
			t.Errorf("parseAddress(%.40q) = %q, want it to contain %q", c.email, err, c.why)
		}
		if ValidSyntax(c.email) {
			t.Errorf("ValidSyntax(%.40q) = true", c.email)
		}
	}
}

func TestParseAddressConvertsIDN(t *testing.T) {
	a, err := parseAddress("user@Bücher.Example")
	if err != nil {
		t.Fatal(err)
	}
	if a.domain != "xn--bcher-kva.example" || a.local != "user" {
		t.Errorf("got %+v", a)
	}
}
