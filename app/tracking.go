package app

import (
	"context"
	"errors"
	"html"
	"regexp"
	"strings"

	"github.com/heraldmail/herald/storage"
)

// Engagement events.
const (
	EventOpen  = "email.open"
	EventClick = "email.click"
)

// hrefPattern finds the http(s) links of anchors; the URL is group 3.
var hrefPattern = regexp.MustCompile(`(?i)(<a\b[^>]*?\bhref\s*=\s*)(["'])(https?://[^"'\s<>]+)(["'])`)

// instrument rewrites a message's links into signed click redirects and
// adds an open pixel. Links to Herald itself (unsubscribe, manage) are left
// alone, so that they work even where redirects are blocked. One pass over
// the body: it runs once per recipient.
func (a *App) instrument(ctx context.Context, emailID, body string) (string, error) {
	base := strings.TrimSuffix(a.baseURL, "/")
	var b strings.Builder
	b.Grow(len(body) + len(body)/4 + 256)
	last := 0
	for _, m := range hrefPattern.FindAllStringSubmatchIndex(body, -1) {
		urlStart, urlEnd := m[6], m[7]
		target := html.UnescapeString(body[urlStart:urlEnd])
		if strings.HasPrefix(target, base+"/") {
			continue
		}
		tok, err := a.SignToken(ctx, TokenClick, emailID+"\n"+target)
		if err != nil {
			return "", err
		}
		b.WriteString(body[last:urlStart])
		b.WriteString(base + "/t/c/" + tok)
		last = urlEnd
	}
	b.WriteString(body[last:])
	out := b.String()
	tok, err := a.SignToken(ctx, TokenOpen, emailID)
	if err != nil {
		return "", err
	}
	pixel := `<img src="` + base + `/t/o/` + tok + `" width="1" height="1" alt="" style="display:none">`
	if i := strings.LastIndex(strings.ToLower(out), "</body>"); i >= 0 {
		return out[:i] + pixel + out[i:], nil
	}
	return out + pixel, nil
}

// RecordOpen records email.open for a pixel token. Every open is an event;
// the first also stamps the email's openedAt.
func (a *App) RecordOpen(ctx context.Context, token string) error {
	emailID, err := a.OpenToken(ctx, TokenOpen, token)
	if err != nil {
		return NotFound("NOT_FOUND", "Unknown link")
	}
	return a.engage(ctx, emailID, "opened_at", EventOpen, nil)
}

// RecordClick records email.click and returns where to redirect. Only a
// URL signed into the message can come out, so the redirect cannot be used
// to send people elsewhere.
func (a *App) RecordClick(ctx context.Context, token string) (string, error) {
	payload, err := a.OpenToken(ctx, TokenClick, token)
	if err != nil {
		return "", NotFound("NOT_FOUND", "Unknown link")
	}
	emailID, target, ok := strings.Cut(payload, "\n")
	if !ok {
		return "", NotFound("NOT_FOUND", "Unknown link")
	}
	err = a.engage(ctx, emailID, "clicked_at", EventClick, map[string]any{"link": target})
	return target, err
}

func (a *App) engage(ctx context.Context, emailID, column, event string, extra map[string]any) error {
	return a.db.Write(ctx, func(tx *storage.Tx) error {
		e, err := storage.EmailByID(ctx, tx, emailID)
		if errors.Is(err, storage.ErrNotFound) {
			return nil // the email was deleted with its project; the link still answers
		}
		if err != nil {
			return err
		}
		first, err := tx.MarkEmail(ctx, emailID, column, a.now())
		if err != nil {
			return err
		}
		data := map[string]any{"isFirst": first}
		for k, v := range extra {
			data[k] = v
		}
		return a.emitEmailEvent(ctx, tx, e, event, data)
	})
}
