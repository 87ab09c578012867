package tracking

import (
	"context"
	"errors"
	"html"
	"strings"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/storage"
)

// instrument rewrites a message's links into signed click redirects and
// adds the open pixel after the content (addPixel). It returns the
// rewritten HTML and the distinct targets (stored with the email: a click
// token carries only a target's number). Links to Herald itself
// (unsubscribe, manage) are left alone, so that they work even where
// redirects are blocked. It runs once per recipient, so it scans the body
// once, without regular expressions.
func (s *Service) Instrument(ctx context.Context, emailID, body string) (string, []string, error) {
	base := strings.TrimSuffix(s.baseURL, "/")
	var b strings.Builder
	b.Grow(len(body) + len(body)/4 + 256)
	last := 0
	var targets []string
	tokens := map[string]string{} // a link repeated in a message is signed once
	for _, l := range anchorLinks(body) {
		target := html.UnescapeString(body[l.start:l.end])
		if strings.HasPrefix(target, base+"/") {
			continue
		}
		tok, ok := tokens[target]
		if !ok {
			var err error
			if tok, err = s.emailToken(ctx, tokenClick, emailID, len(targets)); err != nil {
				return "", nil, err
			}
			tokens[target] = tok
			targets = append(targets, target)
		}
		b.WriteString(body[last:l.start])
		b.WriteString(base + "/t/c/" + tok)
		last = l.end
	}
	b.WriteString(body[last:])
	out := b.String()
	tok, err := s.emailToken(ctx, tokenOpen, emailID, 0)
	if err != nil {
		return "", nil, err
	}
	return addPixel(out, base+"/t/o/"+tok), targets, nil
}

// link is the byte range of an http(s) URL in an anchor's href.
type link struct{ start, end int }

// anchorLinks finds the quoted http(s) href values of <a> tags.
func anchorLinks(body string) []link {
	var links []link
	for i := 0; i < len(body); {
		j := strings.IndexByte(body[i:], '<')
		if j < 0 {
			break
		}
		tag := i + j
		end := strings.IndexByte(body[tag:], '>')
		if end < 0 {
			break
		}
		if isAnchor(body[tag:]) {
			if l, ok := hrefValue(body, tag, tag+end); ok {
				links = append(links, l)
			}
		}
		i = tag + end + 1
	}
	return links
}

// isAnchor reports whether s starts with an <a> start tag.
func isAnchor(s string) bool {
	return len(s) > 2 && (s[1] == 'a' || s[1] == 'A') && isHTMLSpace(s[2])
}

func isHTMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// hrefValue finds the href attribute between a tag's < and > and returns
// its value if it is a quoted absolute http(s) URL.
func hrefValue(body string, from, to int) (link, bool) {
	attrs := body[from:to]
	for k := 0; k+4 <= len(attrs); k++ {
		if !strings.EqualFold(attrs[k:k+4], "href") || !isHTMLSpace(attrs[k-1]) {
			continue
		}
		v := k + 4
		for v < len(attrs) && isHTMLSpace(attrs[v]) {
			v++
		}
		if v >= len(attrs) || attrs[v] != '=' {
			continue
		}
		for v++; v < len(attrs) && isHTMLSpace(attrs[v]); v++ {
		}
		if v >= len(attrs) || (attrs[v] != '"' && attrs[v] != '\'') {
			return link{}, false
		}
		q := attrs[v]
		closing := strings.IndexByte(attrs[v+1:], q)
		if closing < 0 {
			return link{}, false
		}
		url := attrs[v+1 : v+1+closing]
		if !hasPrefixFold(url, "http://") && !hasPrefixFold(url, "https://") {
			return link{}, false
		}
		return link{start: from + v + 1, end: from + v + 1 + closing}, true
	}
	return link{}, false
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// lastIndexFold is strings.LastIndex ignoring ASCII case.
func lastIndexFold(s, sub string) int {
	for i := len(s) - len(sub); i >= 0; i-- {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// RecordOpen records email.open for a pixel token. Every open is an event;
// the first also stamps the email's openedAt.
func (s *Service) RecordOpen(ctx context.Context, token string) error {
	emailID, _, err := s.openEmailToken(ctx, tokenOpen, token)
	if err != nil {
		return badLink(err)
	}
	_, err = s.engage(ctx, emailID, "opened_at", event.EventOpen, -1)
	return err
}

// RecordClick records email.click and returns where to redirect: the link
// the token names among those stored with its email, so the redirect
// cannot be used to send people elsewhere.
func (s *Service) RecordClick(ctx context.Context, token string) (string, error) {
	emailID, link, err := s.openEmailToken(ctx, tokenClick, token)
	if err != nil {
		return "", badLink(err)
	}
	return s.engage(ctx, emailID, "clicked_at", event.EventClick, link)
}

func unknownLink() error { return apierr.NotFound("NOT_FOUND", "Unknown link") }

// badLink is a 404 for a token this installation did not sign, and the
// error itself when the token could not be checked (the key not loaded).
func badLink(err error) error {
	if errors.Is(err, ErrBadToken) {
		return unknownLink()
	}
	return err
}

// engage records an open (link < 0) or a click on a link of an email, and
// returns the link's target. The email comes from memory (engagedEmails),
// so a repeat reads nothing and the write holds only the event, with the
// email's first-open or first-click stamp until it is known to be set.
func (s *Service) engage(ctx context.Context, emailID, column, event string, link int) (target string, err error) {
	m, err := s.engaged.get(ctx, s.db.Reader(), emailID)
	if errors.Is(err, storage.ErrNotFound) {
		return "", unknownLink() // the email was deleted with its project
	}
	if err != nil {
		return "", err
	}
	if target, err = m.target(link); err != nil {
		return "", err
	}
	now, key := s.now(), repeatKey(emailID, link)
	if !s.repeats.claim(key, now) {
		return target, nil // recorded less than a minute ago
	}
	var clicked []byte
	if link >= 0 {
		clicked = linkJSON(target)
	}
	id := ids.New()
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		return s.recordEngagement(ctx, tx, m, column, storage.Event{ID: id, Name: event, CreatedAt: now}, clicked)
	})
	if err != nil {
		s.repeats.forget(key, now)
		return "", err
	}
	return target, nil
}

// recordEngagement writes an open's or a click's event ev (its ID, Name
// and CreatedAt set) and stamps the email's column the first time. An
// email read before a contact or project deletion is read again here,
// where the deletion is seen.
func (s *Service) recordEngagement(ctx context.Context, tx *storage.Tx, m *engagedEmail, column string, ev storage.Event, clicked []byte) error {
	if !s.engaged.current(m) {
		var err error
		if m, err = s.engaged.read(ctx, tx, m.ID, false); errors.Is(err, storage.ErrNotFound) {
			return unknownLink()
		} else if err != nil {
			return err
		}
	}
	if !s.budget.allow(m.ProjectID, ev.CreatedAt) {
		s.metrics.EngagementUnrecorded()
		return nil // answered as usual, not recorded (engageBudget)
	}
	first := false
	if !m.stamped(column) {
		var err error
		if first, err = tx.MarkEmail(ctx, m.ID, column, ev.CreatedAt); err != nil {
			return err
		}
		tx.OnCommit(func() { m.setStamped(column) })
	}
	if m.ContactID == "" {
		return nil
	}
	ev.ProjectID, ev.ContactID, ev.Data = m.ProjectID, m.ContactID, m.event.build(first, clicked)
	// The insert's own contact check (free when the contact is there) says
	// whether it stored the event, so a kept email made stale by a deletion
	// that did not call engaged.removed records nothing, and is no 500.
	stored, err := tx.InsertContactEvent(ctx, ev)
	if err != nil {
		return err
	}
	if !stored {
		return s.engagedContactGone(ctx, tx, m.ID)
	}
	return s.events.NoteEvents(ctx, tx, ev)
}

// engagedContactGone answers an open or a click whose kept email's contact
// is gone though no deletion said so: the email is forgotten, and the
// answer is the one a fresh read gives, not found when the email went with
// its project, the usual answer with nothing recorded when only its
// contact went.
func (s *Service) engagedContactGone(ctx context.Context, tx *storage.Tx, emailID string) error {
	s.engaged.forget(emailID)
	_, err := storage.EngagedEmailByID(ctx, tx, emailID)
	if errors.Is(err, storage.ErrNotFound) {
		return unknownLink()
	}
	return err
}
