package dkim

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestHeaderKeys(t *testing.T) {
	cases := []struct {
		name, msg string
		want      []string
	}{
		{"minimal", "From: a@b.c\r\n\r\nbody", []string{"From", "From"}},
		{"set order, not message order", "Subject: s\r\nX-Mailer: m\r\nfrom: a@b.c\r\n\r\n",
			[]string{"From", "From", "Subject", "Subject"}},
		{"case and space before colon", "FROM : a@b.c\r\nmessage-id:<x@y>\r\n\r\n",
			[]string{"From", "From", "Message-ID", "Message-ID"}},
		{"folded lines are not fields", "From: a@b.c\r\nTo: x@y.z,\r\n Cc: not-a-field\r\n\r\n",
			[]string{"From", "From", "To", "To"}},
		{"repeated field", "From: a@b.c\r\nReferences: <1@x>\r\nReferences: <2@x>\r\n\r\n",
			[]string{"From", "From", "References", "References", "References"}},
		{"body not scanned", "From: a@b.c\r\n\r\nTo: x@y.z\r\n", []string{"From", "From"}},
		{"bare LF", "From: a@b.c\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\n\n",
			[]string{"From", "From", "List-Unsubscribe-Post", "List-Unsubscribe-Post"}},
		{"prefix is not a match", "From: a@b.c\r\nTo-Do: x\r\nList-Unsubscribe-Postal: y\r\n\r\n",
			[]string{"From", "From"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := headerKeys([]byte(c.msg))
			if err != nil || !slices.Equal(got, c.want) {
				t.Fatalf("headerKeys = %v, %v; want %v", got, err, c.want)
			}
		})
	}
}

func TestHeaderKeysNeedsOneFrom(t *testing.T) {
	for _, msg := range []string{"", "To: a@b.c\r\n\r\n", "From: a\r\nFrom: b\r\n\r\n", "\r\nFrom: a@b.c\r\n"} {
		if _, err := headerKeys([]byte(msg)); !errors.Is(err, ErrFromField) {
			t.Errorf("headerKeys(%q) = %v; want ErrFromField", msg, err)
		}
	}
}

func TestValidHostname(t *testing.T) {
	good := []string{"example.com", "a", "xn--bcher-kva.example", "herald202604", "s1.sub-domain.example", strings.Repeat("a", 63), strings.Repeat("a.", 126) + "a"}
	bad := []string{"", ".", "example.com.", ".example.com", "a..b", "-a.com", "a-.com", "a_b.com",
		"ex ample.com", "example.com;", "a\r\nb", "bücher.example", strings.Repeat("a", 64), strings.Repeat("a.", 127) + "a"}
	for _, s := range good {
		if !validHostname(s) {
			t.Errorf("validHostname(%q) = false", s)
		}
	}
	for _, s := range bad {
		if validHostname(s) {
			t.Errorf("validHostname(%q) = true", s)
		}
	}
}
