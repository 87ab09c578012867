package messaging

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/render"
	"github.com/heraldmail/herald/app/verify"
)

// requiredText trims a required text field and checks its length.
func RequiredText(v *apierr.Validation, field, raw string, max int) string {
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
func OptionalText(v *apierr.Validation, field, raw string, max int, header bool) *string {
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

func checkNoNewline(v *apierr.Validation, field, s string) {
	if strings.ContainsAny(s, "\r\n") {
		v.Add(field, "invalid_string", "Must not contain line breaks", s)
	}
}

// optionalEmail validates an optional address; empty means not set.
func OptionalEmail(v *apierr.Validation, field, raw string) *string {
	if strings.TrimSpace(raw) == "" {
		return nil
	}
	email := verify.CheckEmail(v, field, raw)
	return &email
}

// checkSenderAddress validates a from address and returns it with its
// domain in A-labels, the form sender domains are stored in, and that
// domain.
func CheckSenderAddress(v *apierr.Validation, field, raw string) (email, domain string) {
	email = verify.NormalizeEmail(raw)
	domain, ok := verify.AddressDomain(email)
	if !ok {
		v.Add(field, "invalid_string", "Invalid email", raw)
		return email, ""
	}
	local, _, _ := strings.Cut(email, "@")
	return local + "@" + domain, domain
}

func CheckTemplateType(v *apierr.Validation, field, raw string) string {
	switch raw {
	case TemplateTransactional, TemplateMarketing, TemplateHeadless:
		return raw
	}
	v.Add(field, "invalid_enum_value",
		"Invalid enum value. Expected 'TRANSACTIONAL' | 'MARKETING' | 'HEADLESS', received '"+raw+"'", raw)
	return raw
}

// checkTemplateText reports template syntax errors, and templates that
// cross a render bound whatever their data, at save time rather than at
// send time. A request that ends meanwhile is no fault of the template.
func (s *Service) CheckTemplateText(ctx context.Context, v *apierr.Validation, field, text string, mode render.Mode) {
	err := s.renderer.Check(ctx, text, mode)
	var syntax *render.SyntaxError
	switch {
	case err == nil || ctx.Err() != nil:
	case errors.As(err, &syntax):
		v.Add(field, "invalid_template", "Template syntax error: "+err.Error(), nil)
	default:
		v.Add(field, templateErrorCode(err), "Template error: "+err.Error(), nil)
	}
}

// renderFailure is a failed render of field as the client sees it: a 422
// at the field, whose code says whether a bound stopped it; the end of
// the request's context stays what it is.
func renderFailure(ctx context.Context, field string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return apierr.Invalid(apierr.FieldError{Field: field, Code: templateErrorCode(err), Message: err.Error()})
}

// templateErrorCode is template_limit for a render a bound stopped.
func templateErrorCode(err error) string {
	var limit *render.LimitError
	if errors.As(err, &limit) {
		return "template_limit"
	}
	return "invalid_template"
}
