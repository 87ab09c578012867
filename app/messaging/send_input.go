package messaging

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/jsondata"
	"github.com/heraldmail/herald/app/message"
	"github.com/heraldmail/herald/app/verify"
)

// SendInput is the body of POST /v1/send with the field names of
// DECISIONS.md. `to` and `from` take several shapes, so they arrive raw.
type SendInput struct {
	To          json.RawMessage
	Subject     *string
	Body        *string
	Template    *string
	From        json.RawMessage
	Name        *string // deprecated display name, used only with a plain-string from
	Subscribed  *bool
	Data        map[string]any
	Headers     map[string]string
	Reply       *string
	Attachments []AttachmentInput
}

// AttachmentInput is one item of `attachments`.
type AttachmentInput struct {
	Filename    string `json:"filename"`
	Content     string `json:"content"` // base64
	ContentType string `json:"contentType"`
	ContentID   string `json:"contentId"`
	Disposition string `json:"disposition"` // attachment (default) | inline
}

// MaxRecipients bounds `to` on /v1/send; the subject's limit is MaxSubject.
const MaxRecipients = 50

// MaxDisplayName bounds the display name of any address Herald writes into
// a header (From, To, a template's or campaign's fromName): long enough for
// any real name, short enough to fold into a header without surprises.
const MaxDisplayName = 256

// checkDisplayName applies the display name rules at field: at most
// MaxDisplayName characters, one line.
func checkDisplayName(v *apierr.Validation, field, name string) {
	switch {
	case utf8.RuneCountInString(name) > MaxDisplayName:
		v.Add(field, "too_big", "Display names must be at most 256 characters", utf8.RuneCountInString(name))
	case strings.ContainsAny(name, "\r\n"):
		v.Add(field, "invalid_string", "Display names must not contain line breaks", name)
	}
}

// addressInput is `{name, email}`.
type addressInput struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// parseAddress reads a string or {name, email} at field.
func parseAddress(v *apierr.Validation, field string, raw json.RawMessage) (message.Address, bool) {
	raw = bytes.TrimSpace(raw)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return message.Address{Email: verify.CheckEmail(v, field, s)}, true
	}
	var a addressInput
	if len(raw) > 0 && raw[0] == '{' && json.Unmarshal(raw, &a) == nil {
		checkDisplayName(v, apierr.FieldPath(field, "name"), a.Name)
		return message.Address{Name: a.Name, Email: verify.CheckEmail(v, apierr.FieldPath(field, "email"), a.Email)}, true
	}
	v.Add(field, "invalid_type", "Expected an email string or {name, email}", jsondata.Kind(raw))
	return message.Address{}, false
}

// parseRecipients reads `to`: one address or an array of them.
func parseRecipients(v *apierr.Validation, raw json.RawMessage) []message.Address {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		v.Add("to", "invalid_type", "Required", "undefined")
		return nil
	}
	if raw[0] != '[' {
		a, ok := parseAddress(v, "to", raw)
		if !ok {
			return nil
		}
		return []message.Address{a}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 || len(items) > MaxRecipients {
		v.Add("to", "too_small", "Give 1 to 50 recipients", len(items))
		return nil
	}
	out := make([]message.Address, 0, len(items))
	for i, item := range items {
		if a, ok := parseAddress(v, apierr.FieldPath("to", i), item); ok {
			out = append(out, a)
		}
	}
	return out
}

// checkSubject applies the subject rules: 1..998 characters, one line.
func CheckSubject(v *apierr.Validation, s string) {
	switch {
	case s == "":
		v.Add("subject", "too_small", "Subject must not be empty", s)
	case len([]rune(s)) > MaxSubject:
		v.Add("subject", "too_big", "Subject must be at most 998 characters", len([]rune(s)))
	case strings.ContainsAny(s, "\r\n"):
		v.Add("subject", "invalid_string", "Subject must not contain line breaks", s)
	}
}

// decodeAttachments decodes and checks `attachments`.
func decodeAttachments(v *apierr.Validation, in []AttachmentInput) []message.Attachment {
	out := make([]message.Attachment, 0, len(in))
	for i, a := range in {
		content, err := base64.StdEncoding.DecodeString(strings.TrimSpace(a.Content))
		if err != nil {
			// Keep the item, empty, so later items keep their index in
			// the attachment checks' field paths.
			v.Add(apierr.FieldPath("attachments", i, "content"), "invalid_string", "Content must be base64", nil)
		}
		switch a.Disposition {
		case "", "attachment", "inline":
		default:
			v.Add(apierr.FieldPath("attachments", i, "disposition"), "invalid_enum_value",
				"Disposition must be attachment or inline", a.Disposition)
		}
		out = append(out, message.Attachment{Filename: a.Filename, Content: content,
			ContentType: a.ContentType, ContentID: a.ContentID, Inline: a.Disposition == "inline"})
	}
	return out
}
