package verify

import "testing"

func TestOneEdit(t *testing.T) {
	cases := []struct {
		a, b string
		want bool
	}{
		{"gmail.com", "gmail.com", false},
		{"gmial.com", "gmail.com", true}, // transposition
		{"gmai.com", "gmail.com", true},  // deletion
		{"gmaill.com", "gmail.com", true},
		{"gmaio.com", "gmail.com", true}, // substitution
		{"gmail.co", "gmail.com", true},
		{"xgmail.com", "gmail.com", true},
		{"gmail.comx", "gmail.com", true},
		{"mgail.com", "gmail.com", true},
		{"gmailc.om", "gmail.com", true},
		{"gmal.co", "gmail.com", false},
		{"gmial.cmo", "gmail.com", false},
		{"gmail.de", "gmail.com", false},
		{"", "a", true},
		{"ab", "ba", true},
		{"abc", "cba", false},
	}
	for _, c := range cases {
		if got := oneEdit(c.a, c.b); got != c.want {
			t.Errorf("oneEdit(%q, %q) = %v", c.a, c.b, got)
		}
		if got := oneEdit(c.b, c.a); got != c.want {
			t.Errorf("oneEdit(%q, %q) = %v (swapped)", c.b, c.a, got)
		}
	}
}

func TestSuggestDomain(t *testing.T) {
	l := mustLists(t)
	cases := map[string]string{
		"gmial.com":    "gmail.com", // listed
		"gmail.con":    "gmail.com",
		"hotmial.com":  "hotmail.com",
		"yahooo.com":   "yahoo.com",
		"outlok.com":   "outlook.com",
		"iclod.com":    "icloud.com",
		"aol.con":      "aol.com",
		"gmaio.com":    "gmail.com", // one edit, not listed
		"hotmaik.com":  "hotmail.com",
		"yahoo.cpm":    "yahoo.com",
		"outlookk.com": "outlook.com",
		"gmai.com":     "gmail.com", // also in the disposable list
		"gmail.com":    "",
		"email.com":    "", // one edit from gmail.com, but a real provider
		"ymail.com":    "",
		"cloud.com":    "", // lookalike
		"example.com":  "",
		"ao.com":       "", // aol.com is too short a target
		"gmx.de":       "",
	}
	for domain, want := range cases {
		if got := l.suggestDomain(domain); got != want {
			t.Errorf("suggestDomain(%q) = %q, want %q", domain, got, want)
		}
	}
}
