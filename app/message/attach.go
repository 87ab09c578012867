package message

import (
	"bytes"
	"maps"
	"mime"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// writeAttachment writes the header and base64 body of one attachment part.
// checkMessage has already refused bad filenames and Content-IDs.
func writeAttachment(b *bytes.Buffer, a *Attachment) {
	h := beginHeader(b, "Content-Type")
	mediaType, params := attachmentType(a.ContentType)
	h.word(mediaType + ";")
	for _, k := range slices.Sorted(maps.Keys(params)) {
		param(&h, k, params[k], ";")
	}
	// name= is obsolete (RFC 2183 moved it to filename=) but older clients
	// still read only this one, and many of them know no RFC 2231: a name
	// that is not ASCII goes there as encoded-words, as common mailers
	// send it; Content-Disposition carries the RFC 2231 form.
	// So is a name too long for one line: the quoted form cannot fold.
	if quotedFits("name", a.Filename) {
		fileParam(&h, "name", a.Filename)
	} else {
		encodedParam(&h, "name", a.Filename)
	}
	_ = h.end() // parameters are folded or split, never too long
	b.WriteString("Content-Transfer-Encoding: base64\r\n")
	if a.ContentID != "" {
		b.WriteString("Content-ID: <")
		b.WriteString(bareContentID(a.ContentID))
		b.WriteString(">\r\n")
	}
	h = beginHeader(b, "Content-Disposition")
	if a.Inline {
		h.word("inline;")
	} else {
		h.word("attachment;")
	}
	fileParam(&h, "filename", a.Filename)
	_ = h.end()
	b.WriteString("\r\n")
	writeBase64(b, a.Content)
}

// attachmentType parses the caller's Content-Type, keeping its parameters
// (charset, say) apart from name, which Herald sets from the filename.
// Unparsable types become application/octet-stream, and so do multipart/*
// and message/*: RFC 2046 forbids base64 on composite types, and a
// multipart/* type would make readers look for boundaries inside the file.
func attachmentType(ct string) (string, map[string]string) {
	mediaType, params, err := mime.ParseMediaType(ct)
	if err != nil || strings.HasPrefix(mediaType, "multipart/") || strings.HasPrefix(mediaType, "message/") {
		return "application/octet-stream", nil
	}
	delete(params, "name")
	return mediaType, params
}

// param writes one "key=value" parameter followed by sep, as a token
// when it can be one and fits a line.
func param(h *headerLine, key, value, sep string) {
	if isToken(value) && 1+len(key)+1+len(value)+len(sep) <= foldAt {
		h.word(key + "=" + value + sep)
		return
	}
	fileParam(h, key, value)
	h.b.WriteString(sep)
	h.col += len(sep)
}

// fileParam writes a parameter as a quoted-string, as mailers
// conventionally send filenames, when it is printable ASCII and fits a
// line, and in RFC 2231 form (charset, percent encoding, continuations)
// otherwise: a quoted-string cannot be folded, so a long one would pass 78
// characters.
func fileParam(h *headerLine, key, value string) {
	if quotedFits(key, value) {
		h.word(key + `="` + quote(value) + `"`)
		return
	}
	extendedParam(h, key, value, "")
}

// extendedParam writes an RFC 2231 parameter (charset utf-8, no language,
// the value percent-encoded), split into continuations key*0*, key*1*, ...
// of about 60 characters when longer, cut at rune boundaries so that
// readers decoding segment by segment still see whole characters.
func extendedParam(h *headerLine, key, value, sep string) {
	const segment = 60
	if len(key)+len("*=utf-8''")+percentLen(value) <= segment {
		var b strings.Builder
		b.WriteString(key + "*=utf-8''")
		percentEncode(&b, value)
		h.word(b.String() + sep)
		return
	}
	var seg strings.Builder
	for i := 0; len(value) > 0; i++ {
		seg.Reset()
		seg.WriteString(key + "*" + strconv.Itoa(i) + "*=")
		if i == 0 {
			seg.WriteString("utf-8''")
		}
		for len(value) > 0 && seg.Len() < segment {
			_, size := utf8.DecodeRuneInString(value)
			percentEncode(&seg, value[:size])
			value = value[size:]
		}
		if len(value) > 0 {
			seg.WriteString(";")
		} else {
			seg.WriteString(sep)
		}
		h.word(seg.String())
	}
}

// quotedFits reports whether key="value" can be sent quoted: printable
// ASCII without tabs, and short enough for a folded line of its own, with
// room for a separator.
func quotedFits(key, value string) bool {
	return plainASCII(value) && !strings.ContainsRune(value, '\t') &&
		1+len(key)+len(`="`)+len(quote(value))+len(`";`) <= foldAt
}

func percentLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if !isAttrChar(s[i]) {
			n += 2
		}
	}
	return n
}

// percentEncode writes s with every byte outside RFC 2231 attribute-char
// as %XX.
func percentEncode(b *strings.Builder, s string) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAttrChar(c) {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
}

func isAttrChar(c byte) bool {
	return c > ' ' && c < 0x7f && !strings.ContainsRune(`*'%()<>@,;:\"/[]?=`, rune(c))
}

// isToken reports whether v is an RFC 2045 token, sendable without quotes.
func isToken(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c <= ' ' || c >= 0x7f || strings.IndexByte(`()<>@,;:\"/[]?=`, c) >= 0 {
			return false
		}
	}
	return true
}

func quote(v string) string {
	if !strings.ContainsAny(v, `"\`) {
		return v
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v)
}

// bareContentID strips one pair of angle brackets: the API accepts "logo"
// and "<logo>" alike, and the header needs exactly one pair.
func bareContentID(id string) string {
	if len(id) >= 2 && id[0] == '<' && id[len(id)-1] == '>' {
		return id[1 : len(id)-1]
	}
	return id
}

// encodedParam writes key="=?utf-8?b?...?= =?utf-8?b?...?=", the value as
// B encoded-words short enough to fold between them.
func encodedParam(h *headerLine, key, value string) {
	first := true
	for len(value) > 0 {
		var w string
		w, value = encodeChunk(value, 60, true)
		if first {
			w = key + `="` + w
			first = false
		}
		if len(value) == 0 {
			w += `"`
		}
		h.word(w)
	}
}
