package app

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/heraldmail/herald/app/render"
	"github.com/heraldmail/herald/app/verify"
)

// requiredText trims a required text field and checks its length.
func requiredText(v *Validation, field, raw string, max int) string {
	s := strings.TrimSpace(raw)
	switch {
	case s == "":
		v.Add(field, "too_small", "Must not be empty", raw)
	case utf8.RuneCountInString(s) > max:
		v.Add(field, "too_big", "Must be at most "+strconv.Itoa(max)+" characters", nil)
	}
	return s
}

// optionalText trims an optional text field; empty means not set (nil).
// Fields that become headers must not hold line breaks.
func optionalText(v *Validation, field, raw string, max int, header bool) *string {
	s := strings.TrimSpace(raw)
	switch {
	case s == "":
		return nil
	case utf8.RuneCountInString(s) > max:
		v.Add(field, "too_big", "Must be at most "+strconv.Itoa(max)+" characters", nil)
	case header:
		checkNoNewline(v, field, s)
	}
	return &s
}

func checkNoNewline(v *Validation, field, s string) {
	if strings.ContainsAny(s, "\r\n") {
		v.Add(field, "invalid_string", "Must not contain line breaks", s)
	}
}

// optionalEmail validates an optional address; empty means not set.
func optionalEmail(v *Validation, field, raw string) *string {
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	email := checkEmail(v, field, raw)
	return &email
}

// checkSenderAddress validates a from address and returns it with its
// domain in A-labels, the form sender domains are stored in, and that
// domain.
func checkSenderAddress(v *Validation, field, raw string) (email, domain string) {
	email = NormalizeEmail(raw)
	domain, ok := verify.AddressDomain(email)
	if !ok {
		v.Add(field, "invalid_string", "Invalid email", raw)
		return email, ""
	}
	local, _, _ := strings.Cut(email, "@")
	return local + "@" + domain, domain
}

func checkTemplateType(v *Validation, field, raw string) string {
	switch raw {
	case TemplateTransactional, TemplateMarketing, TemplateHeadless:
		return raw
	}
	v.Add(field, "invalid_enum_value",
		"Invalid enum value. Expected 'TRANSACTIONAL' | 'MARKETING' | 'HEADLESS', received '"+raw+"'", raw)
	return raw
}

// checkTemplateText reports template syntax errors at save time rather
// than at send time.
func (a *App) checkTemplateText(v *Validation, field, text string, mode render.Mode) {
	if err := a.renderer.Check(text, mode); err != nil {
		v.Add(field, "invalid_template", "Template syntax error: "+err.Error(), nil)
	}
}
