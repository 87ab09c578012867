package sandbox

import (
	"context"
	"errors"
	"html"
	"strings"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/paging"
	"github.com/heraldmail/herald/storage"
)

// Summary is a captured message as GET /sandbox/messages lists it.
type Summary struct {
	ID        string    `json:"id"`
	EmailID   *string   `json:"emailId"` // null when no email carries its Message-ID
	From      string    `json:"from"`    // the From field, decoded
	To        []string  `json:"to"`      // the mailboxes it was delivered into
	Subject   string    `json:"subject"`
	DKIM      string    `json:"dkim"` // pass | fail
	CreatedAt time.Time `json:"createdAt"`
}

// Message is one captured message as the recipient would see it.
type Message struct {
	Summary
	ReturnPath string `json:"returnPath"` // the envelope sender
	// Headers are the fields as written, unfolded; a name written more
	// than once has its values joined by "\n".
	Headers map[string]string `json:"headers"`
	HTML    string            `json:"html"` // the first HTML part, decoded; "" when none
	Text    string            `json:"text"` // the first plain-text part, decoded
	Raw     string            `json:"raw"`  // the message's source as received
}

func summaryView(m storage.SandboxMessage) Summary {
	v := Summary{ID: m.ID, From: m.HeaderFrom, To: m.Recipients, Subject: m.Subject, DKIM: m.DKIM, CreatedAt: m.CreatedAt}
	if m.EmailID != "" {
		id := m.EmailID
		v.EmailID = &id
	}
	if v.To == nil {
		v.To = []string{}
	}
	return v
}

var errOff = &apierr.Error{Kind: apierr.KindNotFound, Code: "NOT_FOUND", Message: "The sandbox is off on this server",
	Suggestion: "Start Herald with herald serve --sandbox (HERALD_SANDBOX=true) to capture every email here instead of sending it"}

var errNoMessage = apierr.NotFound("NOT_FOUND", "No captured message with this id in this project")

// Query is GET /sandbox/messages's query.
type Query struct {
	Limit  int
	Cursor string
}

// visibleProjects are the projects whose messages the caller lists: the
// request's, and for the administrator the platform mail's too.
func visibleProjects(acc accounts.Access) []string {
	if acc.Admin() {
		return []string{acc.Project.ID, accounts.SystemProjectID}
	}
	return []string{acc.Project.ID}
}

// List returns a page of the project's captured messages, newest first.
func (s *Service) List(ctx context.Context, acc accounts.Access, q Query) (_ paging.Page[Summary], err error) {
	defer apierr.Wrap(&err, "sandbox.List")
	if !s.on {
		return paging.Page[Summary]{}, errOff
	}
	after, err := paging.DecodeCursor(q.Cursor)
	if err != nil {
		return paging.Page[Summary]{}, err
	}
	f := storage.SandboxFilter{ProjectIDs: visibleProjects(acc)}
	rows, err := storage.ListSandboxMessages(ctx, s.db.Reader(), f, after, q.Limit+1)
	if err != nil {
		return paging.Page[Summary]{}, err
	}
	page := paging.Paginate(rows, q.Limit, storage.SandboxMessageCursor)
	if after == nil {
		page.Total, err = storage.CountSandboxMessages(ctx, s.db.Reader(), f)
	}
	return paging.Map(page, summaryView), err
}

// Get returns one captured message of the project, read for the viewer.
func (s *Service) Get(ctx context.Context, acc accounts.Access, id string) (_ Message, err error) {
	defer apierr.Wrap(&err, "sandbox.Get")
	m, err := s.message(ctx, id, func(projectID string) (bool, error) {
		for _, p := range visibleProjects(acc) {
			if p == projectID {
				return true, nil
			}
		}
		return false, nil
	})
	if err != nil {
		return Message{}, err
	}
	r := read(m.Raw)
	return Message{Summary: summaryView(m), ReturnPath: m.MailFrom, Headers: r.Headers, HTML: r.HTML, Text: r.Text,
		Raw: string(m.Raw)}, nil
}

// message reads a captured message the caller may see.
func (s *Service) message(ctx context.Context, id string, sees func(projectID string) (bool, error)) (storage.SandboxMessage, error) {
	if !s.on {
		return storage.SandboxMessage{}, errOff
	}
	if id == "" || len(id) > 64 {
		return storage.SandboxMessage{}, errNoMessage
	}
	m, err := storage.SandboxMessageByID(ctx, s.db.Reader(), id)
	if errors.Is(err, storage.ErrNotFound) {
		return m, errNoMessage
	}
	if err != nil {
		return m, err
	}
	ok, err := sees(m.ProjectID)
	if err == nil && !ok {
		err = errNoMessage
	}
	return m, err
}

// ViewHTML is the document the dashboard's sandboxed frame shows for a
// captured message: its HTML part, or its text when it has none, with
// links opening in a new tab as a mail client opens them (the frame's
// own navigation is held to this origin). The caller is a session: a
// member of the message's project, or the administrator for platform
// mail.
func (s *Service) ViewHTML(ctx context.Context, acc accounts.Access, id string) (_ string, err error) {
	defer apierr.Wrap(&err, "sandbox.ViewHTML")
	m, err := s.message(ctx, id, func(projectID string) (bool, error) {
		return s.accounts.SeesProject(ctx, acc, projectID)
	})
	if err != nil {
		return "", err
	}
	r := read(m.Raw)
	if r.HTML == "" {
		return `<!doctype html><html><head><base target="_blank"></head><body>` +
			`<pre style="white-space:pre-wrap;font:14px/1.5 monospace">` + html.EscapeString(r.Text) + `</pre></body></html>`, nil
	}
	return withBaseTarget(r.HTML), nil
}

// withBaseTarget puts <base target="_blank"> at the start of the
// document's head (or of the document), before any link it governs.
func withBaseTarget(doc string) string {
	const base = `<base target="_blank">`
	lower := strings.ToLower(doc)
	for _, tag := range []string{"<head", "<html"} {
		i := strings.Index(lower, tag)
		if i < 0 || i+len(tag) >= len(lower) || !strings.ContainsRune(" \t\r\n>", rune(lower[i+len(tag)])) {
			continue
		}
		if end := strings.IndexByte(lower[i:], '>'); end >= 0 {
			at := i + end + 1
			return doc[:at] + base + doc[at:]
		}
	}
	return base + doc
}
