package messaging

import (
	"context"
	"strings"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/paging"
	"github.com/heraldmail/herald/storage"
)

// TemplateQuery is GET /templates's query.
type TemplateQuery struct {
	Limit  int
	Cursor string
	Search string // substring of the name
	Type   string // "" for every type
}

// ListTemplates returns one page of templates, newest first.
func (s *Service) ListTemplates(ctx context.Context, projectID string, q TemplateQuery) (paging.Page[Template], error) {
	switch q.Type {
	case "", TemplateTransactional, TemplateMarketing, TemplateHeadless:
	default:
		return paging.Page[Template]{}, apierr.BadRequest("Invalid type %q: use TRANSACTIONAL, MARKETING or HEADLESS", q.Type)
	}
	if err := paging.CheckSearch(q.Search); err != nil {
		return paging.Page[Template]{}, err
	}
	after, err := paging.DecodeCursor(q.Cursor)
	if err != nil {
		return paging.Page[Template]{}, err
	}
	f := storage.TemplateFilter{ProjectID: projectID, Search: strings.TrimSpace(q.Search), Type: q.Type}
	rows, err := storage.ListTemplates(ctx, s.db.Reader(), f, after, q.Limit+1)
	if err != nil {
		return paging.Page[Template]{}, err
	}
	page := paging.Paginate(rows, q.Limit, storage.TemplateCursor)
	if after == nil {
		page.Total, err = storage.CountTemplates(ctx, s.db.Reader(), f)
	}
	return page, err
}

// TemplateUsage lists what references a template: campaigns, and workflow
// steps that send it.
type TemplateUsage struct {
	Campaigns []any `json:"campaigns"`
	Workflows []any `json:"workflows"`
}

func (u TemplateUsage) inUse() bool { return len(u.Campaigns)+len(u.Workflows) > 0 }

// GetTemplateUsage serves GET /templates/{id}/usage.
func (s *Service) GetTemplateUsage(ctx context.Context, projectID, id string) (TemplateUsage, error) {
	if _, err := s.GetTemplate(ctx, projectID, id); err != nil {
		return TemplateUsage{}, err
	}
	return templateUsage(ctx, s.db.Reader(), projectID, id)
}

// templateUsage finds the references to a template. Campaigns and
// workflows add their queries here as they come to exist; DeleteTemplate
// refuses while anything is listed.
func templateUsage(ctx context.Context, q storage.Querier, projectID, id string) (TemplateUsage, error) {
	u := TemplateUsage{Campaigns: []any{}, Workflows: []any{}}
	steps, err := storage.StepsUsingTemplate(ctx, q, projectID, id)
	for _, s := range steps {
		u.Workflows = append(u.Workflows, s)
	}
	return u, err
}
