package dkim

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Herald writes the DKIM-Signature field itself rather than through
// go-msgauth's signer, whose h= tag (every signed field, oversigned) stays on
// one line of 150 characters and more, past RFC 5322's 78. The field's own
// text is part of what is signed, so the folds must be made before signing:
// h= is folded after its colons, which RFC 6376 §3.5 allows (FWS around ":"),
// and b= in 72-character pieces (its whitespace is ignored, §3.5). Both
// canonicalizations are relaxed (§3.4.2, §3.4.4), the hash sha256.

const foldAt = 78

// relaxedSign builds the whole field, final CRLF included.
func (s *Signer) relaxedSign(domain string, keys []string, message []byte, now time.Time) (string, error) {
	header, body, ok := splitMessage(message)
	if !ok {
		return "", errNoHeaderEnd
	}
	bh := relaxedBodyHash(body)
	alg := "rsa-sha256"
	if _, ok := s.key.(ed25519.PrivateKey); ok {
		alg = "ed25519-sha256"
	}
	f := fieldWriter{}
	f.b.WriteString("DKIM-Signature:")
	f.col = len("DKIM-Signature:")
	f.word("v=1;")
	f.word("a=" + alg + ";")
	f.word("c=relaxed/relaxed;")
	f.word("d=" + domain + ";")
	f.word("s=" + s.selector + ";")
	f.word("t=" + strconv.FormatInt(now.Unix(), 10) + ";")
	for i, k := range keys {
		w := k + ":"
		if i == 0 {
			w = "h=" + w
		}
		if i == len(keys)-1 {
			w = strings.TrimSuffix(w, ":") + ";"
		}
		f.wordTight(w, i > 0)
	}
	f.word("bh=" + base64.StdEncoding.EncodeToString(bh[:]) + ";")
	if f.col+len(" b=")+8 > foldAt { // room for some of the signature after b=
		f.b.WriteString("\r\n")
		f.col = 0
	}
	f.word("b=")

	h := sha256.New()
	fields := headerFields(header)
	used := map[string]int{}
	for _, k := range keys {
		lk := strings.ToLower(k)
		// The fields of one name are signed from the last upwards (§5.4.2);
		// a name listed more often than it occurs signs nothing more.
		n := used[lk]
		used[lk]++
		idx := -1
		for i := len(fields) - 1; i >= 0; i-- {
			if strings.EqualFold(fields[i].name, lk) {
				if n == 0 {
					idx = i
					break
				}
				n--
			}
		}
		if idx >= 0 {
			h.Write(relaxedField(fields[idx].raw))
			h.Write([]byte("\r\n"))
		}
	}
	h.Write(relaxedField(f.b.Bytes()))
	digest := h.Sum(nil)
	var opts crypto.SignerOpts = crypto.SHA256
	if alg == "ed25519-sha256" {
		opts = crypto.Hash(0)
	}
	sig, err := s.key.Sign(rand.Reader, digest, opts)
	if err != nil {
		return "", err
	}
	b64 := base64.StdEncoding.EncodeToString(sig)
	for len(b64) > 0 {
		n := min(len(b64), foldAt-f.col)
		f.b.WriteString(b64[:n])
		f.col += n
		b64 = b64[n:]
		if len(b64) > 0 {
			f.b.WriteString("\r\n ")
			f.col = 1
		}
	}
	f.b.WriteString("\r\n")
	return f.b.String(), nil
}

type fieldWriter struct {
	b   bytes.Buffer
	col int
}

// word writes " w", folding first when it would pass foldAt.
func (f *fieldWriter) word(w string) {
	if f.col+1+len(w) > foldAt {
		f.b.WriteString("\r\n")
		f.col = 0
	}
	f.b.WriteByte(' ')
	f.b.WriteString(w)
	f.col += 1 + len(w)
}

// wordTight writes w right after what precedes it (inside h=), or on a
// folded line when it would pass foldAt.
func (f *fieldWriter) wordTight(w string, tight bool) {
	if !tight {
		f.word(w)
		return
	}
	if f.col+len(w) > foldAt {
		f.b.WriteString("\r\n ")
		f.col = 1
	}
	f.b.WriteString(w)
	f.col += len(w)
}

var errNoHeaderEnd = errors.New("dkim: message has no empty line ending its header")

func splitMessage(m []byte) (header, body []byte, ok bool) {
	if bytes.HasPrefix(m, []byte("\r\n")) {
		return nil, m[2:], true
	}
	if i := bytes.Index(m, []byte("\r\n\r\n")); i >= 0 {
		return m[:i+2], m[i+4:], true
	}
	return nil, nil, false
}

type rawField struct {
	name string
	raw  []byte // name, colon, value with its folds; no final CRLF
}

// headerFields splits a header (CRLF lines) into its fields.
func headerFields(h []byte) []rawField {
	var out []rawField
	for len(h) > 0 {
		end := 0
		for {
			i := bytes.Index(h[end:], []byte("\r\n"))
			if i < 0 {
				end = len(h)
				break
			}
			end += i + 2
			if end >= len(h) || (h[end] != ' ' && h[end] != '\t') {
				break
			}
		}
		raw := bytes.TrimSuffix(h[:end], []byte("\r\n"))
		if name, _, ok := bytes.Cut(raw, []byte(":")); ok {
			out = append(out, rawField{name: string(bytes.TrimRight(name, " \t")), raw: raw})
		}
		h = h[end:]
	}
	return out
}

// relaxedField is §3.4.2: the name lower-cased, the value unfolded, runs of
// whitespace made one space, whitespace around the colon and at the end
// removed.
func relaxedField(raw []byte) []byte {
	name, value, _ := bytes.Cut(raw, []byte(":"))
	out := make([]byte, 0, len(raw))
	out = append(out, bytes.ToLower(bytes.TrimRight(name, " \t"))...)
	out = append(out, ':')
	space, start := false, true
	for _, c := range value {
		switch c {
		case '\r', '\n':
			continue
		case ' ', '\t':
			space = true
			continue
		}
		if space && !start {
			out = append(out, ' ')
		}
		space, start = false, false
		out = append(out, c)
	}
	return out
}
