package storage

import (
	"context"
)

// ContactFilter selects contacts for a list or a count.
type ContactFilter struct {
	ProjectID  string
	Search     string // substring of the email, case-insensitive; "" for all
	Subscribed *bool  // nil for both states
}

// ContactSort is a sort column allowed in contact lists.
type ContactSort string

// The sort columns of GET /contacts.
const (
	SortCreatedAt ContactSort = "createdAt"
	SortEmail     ContactSort = "email"
)

// ContactPage asks for one page of contacts.
type ContactPage struct {
	ContactFilter
	Sort  ContactSort
	Desc  bool
	After *Cursor
	Limit int
}

const contactFilterSQL = ` FROM contacts WHERE project_id = ?1
	AND (?2 = '' OR email LIKE ?2 ESCAPE '\')
	AND (subscribed = ?3 OR ?3 IS NULL)`

// contactOrderSQL returns the keyset condition and ordering for a sort. The
// SQL comes only from these constants, never from request text.
func contactOrderSQL(sort ContactSort, desc bool) (after, order string) {
	col := "created_at"
	if sort == SortEmail {
		col = "email"
	}
	// The limit's bare ? takes the number after the largest before it:
	// ?4 without a cursor, ?6 with one, so that every argument passed is
	// one the statement reads (PostgreSQL types each from its use).
	if desc {
		return ` AND (` + col + `, id) < (?4, ?5)`, ` ORDER BY ` + col + ` DESC, id DESC LIMIT ?`
	}
	return ` AND (` + col + `, id) > (?4, ?5)`, ` ORDER BY ` + col + ` ASC, id ASC LIMIT ?`
}

// ListContacts returns up to p.Limit contacts after p.After.
func ListContacts(ctx context.Context, q Querier, p ContactPage) (_ []Contact, err error) {
	defer wrap(&err, "ListContacts")
	after, order := contactOrderSQL(p.Sort, p.Desc)
	query := `SELECT ` + contactColumns + contactFilterSQL
	args := []any{p.ProjectID, searchArg(p.Search), p.Subscribed}
	if p.After != nil {
		query += after
		var key any = p.After.Num
		if p.Sort == SortEmail {
			key = p.After.Str
		}
		args = append(args, key, p.After.ID)
	}
	query += order
	rows, err := q.Query(ctx, query, append(args, p.Limit)...)
	return collect(rows, err, scanContact)
}

// CountContacts counts the contacts a filter selects.
func CountContacts(ctx context.Context, q Querier, f ContactFilter) (_ int, err error) {
	defer wrap(&err, "CountContacts")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*)`+contactFilterSQL, f.ProjectID, searchArg(f.Search), f.Subscribed).Scan(&n)
	return n, err
}

// CursorAfter is the cursor that continues a list after c.
func (p ContactPage) CursorAfter(c Contact) Cursor {
	cur := Cursor{Sort: string(p.Sort), Desc: p.Desc, ID: c.ID}
	if p.Sort == SortEmail {
		cur.Str = c.Email
	} else {
		cur.Num = Millis(c.CreatedAt)
	}
	return cur
}

func searchArg(s string) string {
	if s == "" {
		return ""
	}
	return likePattern(s)
}
