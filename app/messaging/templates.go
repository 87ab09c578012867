package messaging

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/app/render"
	"github.com/heraldmail/herald/storage"
)

// Template is a reusable message: subject, HTML body and sender.
type Template = storage.Template

// Template types.
const (
	TemplateTransactional = "TRANSACTIONAL"
	TemplateMarketing     = "MARKETING"
	TemplateHeadless      = "HEADLESS"
)

// Template field limits. The spec gives none; these follow the header
// limits of RFC 5322 for what becomes a header, and keep internal notes
// short.
const (
	MaxTemplateName        = 255
	MaxTemplateDescription = 1000
	MaxSubject             = 998
	MaxFromName            = MaxDisplayName
)

// TemplateInput is the body of POST and PATCH /templates. For PATCH a nil
// field is left as it is, and "" clears an optional one.
type TemplateInput struct {
	Name        *string
	Description *string
	Subject     *string
	Body        *string
	From        *string
	FromName    *string
	ReplyTo     *string
	Type        *string
}

// CreateTemplate validates and stores a template. The from address must be
// at a verified domain of the project.
func (s *Service) CreateTemplate(ctx context.Context, projectID string, in TemplateInput) (Template, error) {
	if in.From == nil || strings.TrimSpace(*in.From) == "" {
		return Template{}, apierr.PlainBadRequest("From address is required")
	}
	now := s.now()
	t := Template{ID: ids.New(), ProjectID: projectID, Type: TemplateMarketing, CreatedAt: now, UpdatedAt: now}
	var v apierr.Validation
	for _, req := range []struct {
		field string
		value *string
	}{{"name", in.Name}, {"subject", in.Subject}, {"body", in.Body}} {
		if req.value == nil {
			v.Add(req.field, "invalid_type", "Required", "undefined")
		}
	}
	s.applyTemplateInput(ctx, &v, &t, in)
	if err := v.Err(); err != nil {
		return Template{}, err
	}
	if err := s.senders.CheckSender(ctx, projectID, t.From); err != nil {
		return Template{}, err
	}
	err := s.db.Write(ctx, func(tx *storage.Tx) error { return tx.InsertTemplate(ctx, t) })
	return t, err
}

// applyTemplateInput validates the given fields and sets them on t.
func (s *Service) applyTemplateInput(ctx context.Context, v *apierr.Validation, t *Template, in TemplateInput) {
	if in.Name != nil {
		t.Name = RequiredText(v, "name", *in.Name, MaxTemplateName)
	}
	if in.Description != nil {
		t.Description = OptionalText(v, "description", *in.Description, MaxTemplateDescription, false)
	}
	if in.Subject != nil {
		t.Subject = RequiredText(v, "subject", *in.Subject, MaxSubject)
		s.CheckTemplateText(ctx, v, "subject", t.Subject, render.Header)
		checkNoNewline(v, "subject", t.Subject)
	}
	if in.Body != nil {
		if t.Body = *in.Body; strings.TrimSpace(t.Body) == "" {
			v.Add("body", "too_small", "Body must not be empty", *in.Body)
		}
		s.CheckTemplateText(ctx, v, "body", t.Body, render.HTML)
	}
	if in.From != nil {
		t.From, t.FromDomain = CheckSenderAddress(v, "from", *in.From)
	}
	if in.FromName != nil {
		t.FromName = OptionalText(v, "fromName", *in.FromName, MaxFromName, true)
	}
	if in.ReplyTo != nil {
		t.ReplyTo = OptionalEmail(v, "replyTo", *in.ReplyTo)
	}
	if in.Type != nil {
		t.Type = CheckTemplateType(v, "type", *in.Type)
	}
}

// GetTemplate returns one template; send paths use it too.
func (s *Service) GetTemplate(ctx context.Context, projectID, id string) (Template, error) {
	t, err := storage.TemplateByID(ctx, s.db.Reader(), projectID, id)
	return t, templateErr(err)
}

func templateErr(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return apierr.NotFound("TEMPLATE_NOT_FOUND", "Template not found")
	}
	return err
}

// UpdateTemplate changes the given fields. A changed from address must be
// at a verified domain.
func (s *Service) UpdateTemplate(ctx context.Context, projectID, id string, in TemplateInput) (Template, error) {
	old, err := s.GetTemplate(ctx, projectID, id)
	if err != nil {
		return Template{}, err
	}
	t := old
	var v apierr.Validation
	s.applyTemplateInput(ctx, &v, &t, in)
	if err := v.Err(); err != nil {
		return Template{}, err
	}
	if t.From != old.From {
		if err := s.senders.CheckSender(ctx, projectID, t.From); err != nil {
			return Template{}, err
		}
	}
	t.UpdatedAt = s.now()
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		if _, err := storage.TemplateByID(ctx, tx, projectID, id); err != nil { // deleted meanwhile
			return templateErr(err)
		}
		return tx.UpdateTemplate(ctx, t)
	})
	return t, err
}

// DeleteTemplate removes a template that nothing references.
func (s *Service) DeleteTemplate(ctx context.Context, projectID, id string) error {
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		if _, err := storage.TemplateByID(ctx, tx, projectID, id); err != nil {
			return templateErr(err)
		}
		usage, err := templateUsage(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		if usage.inUse() {
			return apierr.Conflict("The template is used by %d campaigns and %d workflow steps", len(usage.Campaigns), len(usage.Workflows))
		}
		_, err = tx.DeleteTemplate(ctx, projectID, id)
		return err
	})
}

// DuplicateTemplate copies a template under the name "<name> (copy)".
func (s *Service) DuplicateTemplate(ctx context.Context, projectID, id string) (Template, error) {
	t, err := s.GetTemplate(ctx, projectID, id)
	if err != nil {
		return Template{}, err
	}
	now := s.now()
	t.ID, t.Name, t.CreatedAt, t.UpdatedAt = ids.New(), CopyName(t.Name), now, now
	err = s.db.Write(ctx, func(tx *storage.Tx) error { return tx.InsertTemplate(ctx, t) })
	return t, err
}

// copyName appends " (copy)", shortening the name to stay within the limit.
func CopyName(name string) string {
	const suffix = " (copy)"
	runes := []rune(name)
	if keep := MaxTemplateName - utf8.RuneCountInString(suffix); len(runes) > keep {
		name = string(runes[:keep])
	}
	return name + suffix
}
