package dkim_test

import (
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/heraldmail/herald/dkim"
)

func TestRecordNameAndValue(t *testing.T) {
	rsaKey := mustGenerate(t, dkim.RSA)
	if got := rsaKey.RecordName("example.com"); got != "herald202604._domainkey.example.com" {
		t.Errorf("RecordName = %q", got)
	}
	p := publicKeyField(t, mustRecord(t, rsaKey), "v=DKIM1; k=rsa; p=")
	if _, err := x509.ParsePKIXPublicKey(p); err != nil {
		t.Errorf("rsa p= is not a SubjectPublicKeyInfo: %v", err)
	}

	edKey := mustGenerate(t, dkim.Ed25519)
	p = publicKeyField(t, mustRecord(t, edKey), "v=DKIM1; k=ed25519; p=")
	block, _ := pem.Decode(edKey.PrivatePEM)
	priv, _ := x509.ParsePKCS8PrivateKey(block.Bytes)
	if want := priv.(ed25519.PrivateKey).Public().(ed25519.PublicKey); string(p) != string(want) {
		t.Errorf("ed25519 p= is not the raw public key (RFC 8463)")
	}
}

// publicKeyField checks the record's prefix and decodes what follows p=.
func publicKeyField(t *testing.T, record, prefix string) []byte {
	t.Helper()
	b64, ok := strings.CutPrefix(record, prefix)
	if !ok {
		t.Fatalf("record %q lacks prefix %q", record, prefix)
	}
	p, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatalf("p= is not base64: %v", err)
	}
	return p
}

func TestRecordMatches(t *testing.T) {
	rsaKey, other, edKey := mustGenerate(t, dkim.RSA), mustGenerate(t, dkim.RSA), mustGenerate(t, dkim.Ed25519)
	rec := mustRecord(t, rsaKey)
	p := strings.TrimPrefix(rec, "v=DKIM1; k=rsa; p=")
	edRec := mustRecord(t, edKey)
	edP := strings.TrimPrefix(edRec, "v=DKIM1; k=ed25519; p=")
	cases := []struct {
		name      string
		published string
		key       dkim.Key
		want      bool
	}{
		{"as generated", rec, rsaKey, true},
		{"no spaces", "v=DKIM1;k=rsa;p=" + p, rsaKey, true},
		{"extra whitespace", " v = DKIM1 ;\tk=rsa ;\r\n p=\t" + p + " ; ", rsaKey, true},
		{"tag order", "p=" + p + "; k=rsa; v=DKIM1", rsaKey, true},
		{"defaults: no v, no k", "p=" + p, rsaKey, true},
		{"strings joined", strings.Join(dkim.TXTStrings(rec), ""), rsaKey, true},
		{"strings joined with space", strings.Join(dkim.TXTStrings(rec), " "), rsaKey, true},
		{"p folded", "v=DKIM1; k=rsa; p=" + p[:64] + "\r\n " + p[64:200] + " " + p[200:], rsaKey, true},
		{"other tags", "v=DKIM1; h=sha1:sha256; s=email; t=y:s; n=hi; k=rsa; p=" + p, rsaKey, true},
		{"service wildcard", "v=DKIM1; s=*; p=" + p, rsaKey, true},
		{"RSAPublicKey form", "v=DKIM1; k=rsa; p=" + pkcs1(t, rsaKey), rsaKey, true},
		{"ed25519", edRec, edKey, true},

		{"wrong key", mustRecord(t, other), rsaKey, false},
		{"revoked", "v=DKIM1; k=rsa; p=", rsaKey, false},
		{"no p", "v=DKIM1; k=rsa", rsaKey, false},
		{"wrong k", "v=DKIM1; k=ed25519; p=" + p, rsaKey, false},
		{"k case differs", "v=DKIM1; k=RSA; p=" + p, rsaKey, false},
		{"ed25519 needs k", "v=DKIM1; p=" + edP, edKey, false},
		{"rsa record for ed25519 key", rec, edKey, false},
		{"wrong version", "v=DKIM2; k=rsa; p=" + p, rsaKey, false},
		{"sha1 only", "v=DKIM1; h=sha1; p=" + p, rsaKey, false},
		{"other service", "v=DKIM1; s=tlsrpt; p=" + p, rsaKey, false},
		{"duplicate tag", "v=DKIM1; p=" + p + "; p=" + p, rsaKey, false},
		{"tag without =", "v=DKIM1; rsa; p=" + p, rsaKey, false},
		{"bad base64", "v=DKIM1; p=" + p[:len(p)-3], rsaKey, false},
		{"literal quotes left in", `"v=DKIM1; k=rsa; p=` + p[:100] + `" "` + p[100:] + `"`, rsaKey, false},
		{"truncated at 255", dkim.TXTStrings(rec)[0], rsaKey, false},
		{"empty", "", rsaKey, false},
		{"SPF record", "v=spf1 -all", rsaKey, false},
		{"unusable stored key", rec, dkim.Key{Selector: "s1", PrivatePEM: []byte("x")}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := dkim.RecordMatches(c.published, c.key); got != c.want {
				t.Fatalf("RecordMatches(%q) = %v; want %v", c.published, got, c.want)
			}
		})
	}
}

func pkcs1(t *testing.T, k dkim.Key) string {
	t.Helper()
	block, _ := pem.Decode(k.PrivatePEM)
	priv, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(x509.MarshalPKCS1PublicKey(&priv.(*rsa.PrivateKey).PublicKey))
}

func TestTXTStrings(t *testing.T) {
	rec := mustRecord(t, mustGenerate(t, dkim.RSA))
	parts := dkim.TXTStrings(rec)
	if len(parts) != 2 || len(parts[0]) != 255 || strings.Join(parts, "") != rec {
		t.Fatalf("TXTStrings split a %d-byte record into %d parts", len(rec), len(parts))
	}
	if got := dkim.TXTStrings("short"); len(got) != 1 || got[0] != "short" {
		t.Fatalf("TXTStrings(short) = %q", got)
	}
}
