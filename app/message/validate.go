package message

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits of the send API.
const (
	MaxHeaderNameLength       = 76  // so "Name: " fits a 78-column line
	MaxHeaderValueLength      = 998 // characters, as the API states
	MaxAttachments            = 10
	MaxFilenameLength         = 255 // characters
	DefaultMaxAttachmentBytes = 10 << 20
	maxContentIDLength        = 250
)

// Problem is one validation failure, shaped like the API's validation items
// so that callers can copy it across. Field is a path such as
// "headers.X-Foo" or "attachments.2.filename".
type Problem struct {
	Field    string `json:"field"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	Received any    `json:"received,omitempty"`
}

// ValidateHeaders checks custom headers (see the package documentation for
// the rules and the reserved names). Problems come in header-name order.
func ValidateHeaders(h map[string]string) []Problem {
	var out []Problem
	seen := make(map[string]string, len(h))
	for _, name := range slices.Sorted(maps.Keys(h)) {
		field := "headers." + name
		if p, ok := checkHeaderName(field, name); !ok {
			out = append(out, p)
			continue
		}
		lower := strings.ToLower(name)
		if other, dup := seen[lower]; dup {
			out = append(out, Problem{field, "duplicate_header",
				"Header " + name + " is given twice (also as " + other + ")", name})
			continue
		}
		seen[lower] = name
		out = append(out, checkHeaderValue(field, h[name])...)
	}
	return out
}

func checkHeaderName(field, name string) (Problem, bool) {
	switch {
	case name == "" || len(name) > MaxHeaderNameLength:
		return Problem{field, "invalid_string", "Header names must be 1 to 76 characters", name}, false
	case !isFieldName(name):
		return Problem{field, "invalid_string",
			"Header names may contain only printable ASCII characters other than colon", name}, false
	case isReservedHeader(strings.ToLower(name)):
		msg := "Header " + name + " is set by Herald and cannot be given"
		if strings.EqualFold(name, "Reply-To") {
			msg += "; use the reply field"
		}
		return Problem{field, "reserved_header", msg, name}, false
	}
	return Problem{}, true
}

func checkHeaderValue(field, v string) []Problem {
	var out []Problem
	if strings.ContainsAny(v, "\r\n") {
		out = append(out, Problem{field, "invalid_string", "Header values must not contain CR or LF", v})
	}
	if n := utf8.RuneCountInString(v); n > MaxHeaderValueLength {
		out = append(out, Problem{field, "too_big", "Header values must be at most 998 characters", n})
	}
	return out
}

// isFieldName reports whether s is RFC 5322 ftext: printable ASCII except
// colon. Space is not ftext, so "Bcc :" style tricks fail here too.
func isFieldName(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < '!' || c > '~' || c == ':' {
			return false
		}
	}
	return true
}

// isReservedHeader takes a lower-cased name. The list and its reasons are
// in the package documentation.
func isReservedHeader(name string) bool {
	switch name {
	case "from", "sender", "to", "cc", "bcc", "reply-to", "subject", "date",
		"message-id", "mime-version", "dkim-signature", "domainkey-signature",
		"authentication-results", "received-spf", "return-path", "received",
		"delivered-to":
		return true
	case "content-language":
		return false
	}
	for _, prefix := range [...]string{"content-", "arc-", "resent-", "list-unsubscribe", "x-herald-"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// ValidateAttachments checks attachments against the send API's rules: at
// most MaxAttachments, each with a valid filename, content type and (for
// inline parts, required) Content-ID, and a total decoded size of at most
// maxTotalBytes (DefaultMaxAttachmentBytes when zero or negative).
func ValidateAttachments(atts []Attachment, maxTotalBytes int) []Problem {
	if maxTotalBytes <= 0 {
		maxTotalBytes = DefaultMaxAttachmentBytes
	}
	var out []Problem
	if len(atts) > MaxAttachments {
		out = append(out, Problem{"attachments", "too_big", "At most 10 attachments are allowed", len(atts)})
	}
	total := 0
	for i := range atts {
		total += len(atts[i].Content)
		out = append(out, checkAttachment(i, &atts[i])...)
	}
	if total > maxTotalBytes {
		out = append(out, Problem{"attachments", "too_big",
			"Attachments must total at most " + sizeText(maxTotalBytes), total})
	}
	return out
}

// checkAttachment checks one attachment's fields; Build runs it too, since
// these fields end up in MIME headers.
func checkAttachment(i int, a *Attachment) []Problem {
	var out []Problem
	field := func(name string) string { return "attachments." + strconv.Itoa(i) + "." + name }
	switch n := utf8.RuneCountInString(a.Filename); {
	case n == 0:
		out = append(out, Problem{field("filename"), "too_small", "Filename must not be empty", a.Filename})
	case n > MaxFilenameLength:
		out = append(out, Problem{field("filename"), "too_big", "Filename must be at most 255 characters", n})
	case strings.ContainsAny(a.Filename, "\r\n\""):
		out = append(out, Problem{field("filename"), "invalid_string",
			"Filename must not contain CR, LF or double quotes", a.Filename})
	}
	if !validContentType(a.ContentType) {
		out = append(out, Problem{field("contentType"), "invalid_string",
			"Content type must be a MIME type such as application/pdf, at most 255 characters", a.ContentType})
	}
	switch {
	case a.ContentID == "" && a.Inline:
		out = append(out, Problem{field("contentId"), "invalid_type",
			"contentId is required when disposition is inline", nil})
	case a.ContentID != "" && !validContentID(bareContentID(a.ContentID)):
		out = append(out, Problem{field("contentId"), "invalid_string",
			"contentId must be 1 to 250 characters of letters, digits and !#$%&'*+-./=?@^_`{|}~", a.ContentID})
	}
	return out
}
