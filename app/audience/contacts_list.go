package audience

import (
	"context"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/paging"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/storage"
)

// ContactQuery is GET /contacts's query.
type ContactQuery struct {
	Limit      int
	Cursor     string
	Search     string
	Subscribed *bool
	Sort       string // createdAt | email; anything else is createdAt
	Dir        string // asc | desc; anything else is desc
}

// ListContacts returns one page of contacts.
func (s *Service) ListContacts(ctx context.Context, projectID string, q ContactQuery) (paging.Page[Contact], error) {
	if err := paging.CheckSearch(q.Search); err != nil {
		return paging.Page[Contact]{}, err
	}
	after, err := paging.DecodeCursor(q.Cursor)
	if err != nil {
		return paging.Page[Contact]{}, err
	}
	p := storage.ContactPage{
		ContactFilter: storage.ContactFilter{ProjectID: projectID, Search: verify.NormalizeEmail(q.Search), Subscribed: q.Subscribed},
		Sort:          storage.SortCreatedAt,
		Desc:          q.Dir != "asc",
		After:         after,
		Limit:         q.Limit + 1,
	}
	if q.Sort == string(storage.SortEmail) {
		p.Sort = storage.SortEmail
	}
	if after != nil { // a cursor continues the order it was made in
		p.Sort, p.Desc = storage.ContactSort(after.Sort), after.Desc
	}
	rows, err := storage.ListContacts(ctx, s.db.Reader(), p)
	if err != nil {
		return paging.Page[Contact]{}, err
	}
	page := paging.Paginate(rows, q.Limit, p.CursorAfter)
	if after == nil {
		page.Total, err = storage.CountContacts(ctx, s.db.Reader(), p.ContactFilter)
	}
	return page, err
}

// LookupResult says which emails are contacts.
type LookupResult struct {
	Found    []string `json:"found"`
	NotFound []string `json:"notFound"`
}

// MaxLookup is the most emails POST /contacts/lookup checks at once.
const MaxLookup = 500

// LookupContacts checks which of up to 500 emails exist.
func (s *Service) LookupContacts(ctx context.Context, projectID string, emails []string) (LookupResult, error) {
	var v apierr.Validation
	switch {
	case len(emails) == 0:
		v.Add("emails", "too_small", "Give between 1 and 500 emails", len(emails))
	case len(emails) > MaxLookup:
		v.Add("emails", "too_big", "Give between 1 and 500 emails", len(emails))
	}
	if err := v.Err(); err != nil {
		return LookupResult{}, err
	}
	normal := make([]string, len(emails))
	for i, e := range emails {
		normal[i] = verify.NormalizeEmail(e)
	}
	found, err := storage.ExistingEmails(ctx, s.db.Reader(), projectID, normal)
	if err != nil {
		return LookupResult{}, err
	}
	exists := make(map[string]bool, len(found))
	for _, e := range found {
		exists[e] = true
	}
	res := LookupResult{Found: []string{}, NotFound: []string{}}
	seen := map[string]bool{}
	for _, e := range normal {
		if seen[e] {
			continue
		}
		seen[e] = true
		if exists[e] {
			res.Found = append(res.Found, e)
		} else {
			res.NotFound = append(res.NotFound, e)
		}
	}
	return res, nil
}
