package blocks

import (
	"net/url"
	"strings"
	"unicode/utf8"
)

// linkProblem says why s cannot be a link's href, or "" when it can. A
// link is an absolute http, https or mailto URL (an email has no base to
// resolve a relative one against), which may hold {{ }} variables, or a
// {{ }} variable that gives the whole URL, such as {{unsubscribeUrl}}:
// app/render checks the scheme of such a value when it renders it.
func linkProblem(s string) string {
	if s == "" {
		return "Required: a URL"
	}
	if utf8.RuneCountInString(s) > MaxURLChars {
		return "At most 2048 characters"
	}
	if p := liquidProblem(s, true); p != "" {
		return p
	}
	// Liquid tags are known good; the rest is what the URL's shape is.
	bare := stripLiquid(s)
	if strings.ContainsFunc(bare, isSpaceOrControl) || strings.ContainsAny(bare, `"<>\`) {
		return `A URL may not contain spaces, control characters or any of " < > \ (write a space as %20)`
	}
	if strings.HasPrefix(s, "{{") {
		return ""
	}
	scheme, rest, ok := strings.Cut(bare, ":")
	switch strings.ToLower(scheme) {
	case "mailto":
		if ok && rest != "" {
			return ""
		}
		return "A mailto: link needs an address"
	case "http", "https":
		u, err := url.Parse(bare)
		if err != nil || u.Host == "" || !strings.HasPrefix(rest, "//") {
			return "Not a valid URL: write it in full, as in https://example.com/page"
		}
		return ""
	}
	return "Expected an http, https or mailto URL, or a {{ variable }}"
}

// stripLiquid replaces each {{ }} tag of s, which liquidProblem accepted,
// by "x", a stand-in that any part of a URL takes.
func stripLiquid(s string) string {
	if !strings.Contains(s, "{{") {
		return s
	}
	var b strings.Builder
	for {
		open := strings.Index(s, "{{")
		if open < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := open + 2 + strings.Index(s[open+2:], "}}") + 2
		b.WriteString(s[:open])
		b.WriteByte('x')
		s = s[end:]
	}
}

// srcProblem says why s cannot be an image's src, or "" when it can: an
// http or https URL as written, without variables (an image is one file of
// the project's uploads, the same for every recipient).
func srcProblem(s string) string {
	if s == "" {
		return "Required: the URL of an image uploaded to the project (POST /uploads/image)"
	}
	if utf8.RuneCountInString(s) > MaxURLChars {
		return "At most 2048 characters"
	}
	if strings.Contains(s, "{{") || strings.Contains(s, "{%") {
		return "An image's src may not contain Liquid"
	}
	if strings.ContainsFunc(s, isSpaceOrControl) || strings.ContainsAny(s, `"<>\`) {
		return "Not a valid URL"
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "Expected the http or https URL of an uploaded image"
	}
	return ""
}

func isSpaceOrControl(r rune) bool {
	return r <= ' ' || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == '\u00a0' || r == '\u2028' || r == '\u2029'
}

// UploadName returns the name of the upload that src points at when src is
// an upload's URL under baseURL, as POST /uploads/image answers it
// (<baseURL>/uploads/<32 hex digits>.<png|jpg|gif|webp>). The caller's
// IsUpload uses it to look the name up among the project's uploads.
func UploadName(baseURL, src string) (string, bool) {
	prefix := strings.TrimSuffix(baseURL, "/") + "/uploads/"
	name, ok := strings.CutPrefix(src, prefix)
	if !ok || baseURL == "" {
		return "", false
	}
	stem, ext, ok := strings.Cut(name, ".")
	if !ok || len(stem) != 32 || strings.Trim(stem, "0123456789abcdef") != "" {
		return "", false
	}
	switch ext {
	case "png", "jpg", "gif", "webp":
		return name, true
	}
	return "", false
}
