package app

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

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
func (a *App) CreateTemplate(ctx context.Context, projectID string, in TemplateInput) (Template, error) {
	if in.From == nil || strings.TrimSpace(*in.From) == "" {
		return Template{}, PlainBadRequest("From address is required")
	}
	now := a.now()
	t := Template{ID: newID(), ProjectID: projectID, Type: TemplateMarketing, CreatedAt: now, UpdatedAt: now}
	var v Validation
	for _, req := range []struct {
		field string
		value *string
	}{{"name", in.Name}, {"subject", in.Subject}, {"body", in.Body}} {
		if req.value == nil {
			v.Add(req.field, "invalid_type", "Required", "undefined")
		}
	}
	a.applyTemplateInput(ctx, &v, &t, in)
	if err := v.Err(); err != nil {
		return Template{}, err
	}
	if err := a.CheckSender(ctx, projectID, t.From); err != nil {
		return Template{}, err
	}
	err := a.db.Write(ctx, func(tx *storage.Tx) error { return tx.InsertTemplate(ctx, t) })
	return t, err
}

// applyTemplateInput validates the given fields and sets them on t.
func (a *App) applyTemplateInput(ctx context.Context, v *Validation, t *Template, in TemplateInput) {
	if in.Name != nil {
		t.Name = requiredText(v, "name", *in.Name, MaxTemplateName)
	}
	if in.Description != nil {
		t.Description = optionalText(v, "description", *in.Description, MaxTemplateDescription, false)
	}
	if in.Subject != nil {
		t.Subject = requiredText(v, "subject", *in.Subject, MaxSubject)
		a.checkTemplateText(ctx, v, "subject", t.Subject, render.Header)
		checkNoNewline(v, "subject", t.Subject)
	}
	if in.Body != nil {
		if t.Body = *in.Body; strings.TrimSpace(t.Body) == "" {
			v.Add("body", "too_small", "Body must not be empty", *in.Body)
		}
		a.checkTemplateText(ctx, v, "body", t.Body, render.HTML)
	}
	if in.From != nil {
		t.From, t.FromDomain = checkSenderAddress(v, "from", *in.From)
	}
	if in.FromName != nil {
		t.FromName = optionalText(v, "fromName", *in.FromName, MaxFromName, true)
	}
	if in.ReplyTo != nil {
		t.ReplyTo = optionalEmail(v, "replyTo", *in.ReplyTo)
	}
	if in.Type != nil {
		t.Type = checkTemplateType(v, "type", *in.Type)
	}
}

// GetTemplate returns one template; send paths use it too.
func (a *App) GetTemplate(ctx context.Context, projectID, id string) (Template, error) {
	t, err := storage.TemplateByID(ctx, a.db.Reader(), projectID, id)
	return t, templateErr(err)
}

func templateErr(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return NotFound("TEMPLATE_NOT_FOUND", "Template not found")
	}
	return err
}

// UpdateTemplate changes the given fields. A changed from address must be
// at a verified domain.
func (a *App) UpdateTemplate(ctx context.Context, projectID, id string, in TemplateInput) (Template, error) {
	old, err := a.GetTemplate(ctx, projectID, id)
	if err != nil {
		return Template{}, err
	}
	t := old
	var v Validation
	a.applyTemplateInput(ctx, &v, &t, in)
	if err := v.Err(); err != nil {
		return Template{}, err
	}
	if t.From != old.From {
		if err := a.CheckSender(ctx, projectID, t.From); err != nil {
			return Template{}, err
		}
	}
	t.UpdatedAt = a.now()
	err = a.db.Write(ctx, func(tx *storage.Tx) error {
		if _, err := storage.TemplateByID(ctx, tx, projectID, id); err != nil { // deleted meanwhile
			return templateErr(err)
		}
		return tx.UpdateTemplate(ctx, t)
	})
	return t, err
}

// DeleteTemplate removes a template that nothing references.
func (a *App) DeleteTemplate(ctx context.Context, projectID, id string) error {
	return a.db.Write(ctx, func(tx *storage.Tx) error {
		if _, err := storage.TemplateByID(ctx, tx, projectID, id); err != nil {
			return templateErr(err)
		}
		usage, err := templateUsage(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		if usage.inUse() {
			return Conflict("The template is used by %d campaigns and %d workflow steps", len(usage.Campaigns), len(usage.Workflows))
		}
		_, err = tx.DeleteTemplate(ctx, projectID, id)
		return err
	})
}

// DuplicateTemplate copies a template under the name "<name> (copy)".
func (a *App) DuplicateTemplate(ctx context.Context, projectID, id string) (Template, error) {
	t, err := a.GetTemplate(ctx, projectID, id)
	if err != nil {
		return Template{}, err
	}
	now := a.now()
	t.ID, t.Name, t.CreatedAt, t.UpdatedAt = newID(), copyName(t.Name), now, now
	err = a.db.Write(ctx, func(tx *storage.Tx) error { return tx.InsertTemplate(ctx, t) })
	return t, err
}

// copyName appends " (copy)", shortening the name to stay within the limit.
func copyName(name string) string {
	const suffix = " (copy)"
	runes := []rune(name)
	if keep := MaxTemplateName - utf8.RuneCountInString(suffix); len(runes) > keep {
		name = string(runes[:keep])
	}
	return name + suffix
}
