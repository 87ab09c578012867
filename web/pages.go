package web

import (
	"html/template"
	"log/slog"
	"net/http"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/tracking"
)

// The pages behind unsubscribeUrl, subscribeUrl and manageUrl. A GET only
// shows a page with a button: mail scanners follow links, and a GET that
// unsubscribed would unsubscribe people who never clicked. The button (and
// RFC 8058 one-click, a POST from the mail client) makes the change.

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:.4rem;border:1px solid #888;background:#f4f4f4;cursor:pointer}
.muted{color:#666}</style></head>
<body><h1>{{.Title}}</h1><p>{{.Message}}</p>
{{if .Action}}<form method="post"><input type="hidden" name="action" value="{{.Action}}"><button type="submit">{{.Button}}</button></form>{{end}}
{{if .Project}}<p class="muted">Sent on behalf of {{.Project}}.</p>{{end}}
</body></html>`))

type page struct {
	Title, Message, Action, Button, Project string
}

func renderPage(w http.ResponseWriter, status int, p page) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	_ = pageTemplate.Execute(w, p)
}

// pageError shows a failed link as a page, not as JSON: people open these
// in a browser. An internal failure is logged with the request id, as
// writeError would, and the page says only that it failed.
func (s *Server) pageError(w http.ResponseWriter, r *http.Request, err error) error {
	e, ok := apierr.AsError(err)
	switch {
	case ok && e.Kind == apierr.KindNotFound:
		renderPage(w, http.StatusNotFound, page{Title: "Link not valid", Message: e.Message})
	case ok:
		renderPage(w, statusOf(e), page{Title: "Request not valid", Message: e.Message})
	default:
		s.log.LogAttrs(r.Context(), slog.LevelError, "internal error",
			slog.String("request_id", reqOf(r).id), slog.String("err", err.Error()))
		renderPage(w, http.StatusInternalServerError, page{Title: "Something went wrong",
			Message: "This link could not be opened just now. Please try again later. (Reference " + reqOf(r).id + ")"})
	}
	return nil
}

// testSendPage answers the links of a campaign's test send.
func testSendPage(p tracking.Preferences) page {
	return page{Title: "This was a test email", Project: p.ProjectName,
		Message: "This link came in a test send of a campaign, so it changes nobody's subscription. " +
			"In the emails of the campaign itself, it lets each recipient manage their subscription."}
}

// preferencePage serves a GET page of a contact link: the page shows the
// contact's address and a button; nothing changes until the button's POST.
func (s *Server) preferencePage(build func(tracking.Preferences) page) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		p, err := s.app.Tracking.PreferencesByToken(r.Context(), param(r, "token"))
		if err != nil {
			return s.pageError(w, r, err)
		}
		if p.Test {
			build = testSendPage
		}
		renderPage(w, http.StatusOK, build(p))
		return nil
	}
}

// unsubscribePage is GET /unsubscribe/{token}.
func unsubscribePage(p tracking.Preferences) page {
	return page{Title: "Unsubscribe", Project: p.ProjectName,
		Message: "Stop receiving these emails at " + p.Email + "?", Action: "unsubscribe", Button: "Unsubscribe"}
}

// subscribePage is GET /subscribe/{token}.
func subscribePage(p tracking.Preferences) page {
	return page{Title: "Subscribe", Project: p.ProjectName,
		Message: "Receive these emails at " + p.Email + "?", Action: "subscribe", Button: "Subscribe"}
}

// managePage is GET /manage/{token}: the current state and the way back.
func managePage(p tracking.Preferences) page {
	if p.Subscribed {
		return page{Title: "Email preferences", Project: p.ProjectName,
			Message: p.Email + " is subscribed.", Action: "unsubscribe", Button: "Unsubscribe"}
	}
	return page{Title: "Email preferences", Project: p.ProjectName,
		Message: p.Email + " is unsubscribed.", Action: "subscribe", Button: "Subscribe again"}
}

// changeSubscription serves POST to the three pages, including RFC 8058
// one-click unsubscribes. The form's action decides on /manage; the path
// decides elsewhere.
func (s *Server) changeSubscription(subscribe bool, manage bool) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		want := subscribe
		if manage {
			// The form decides here: a body that did not arrive decides
			// nothing (one-click POSTs elsewhere need no body).
			if err := r.ParseForm(); err != nil {
				return s.pageError(w, r, apierr.BadRequest("Malformed form: %v", err))
			}
			want = r.PostFormValue("action") == "subscribe"
		}
		p, err := s.app.Tracking.SetSubscriptionByToken(r.Context(), param(r, "token"), want)
		if err != nil {
			return s.pageError(w, r, err)
		}
		if p.Test {
			renderPage(w, http.StatusOK, testSendPage(p))
			return nil
		}
		if manage {
			renderPage(w, http.StatusOK, managePage(p))
			return nil
		}
		msg := p.Email + " will no longer receive these emails."
		title := "You are unsubscribed"
		if want {
			title, msg = "You are subscribed", p.Email+" will receive these emails."
		}
		renderPage(w, http.StatusOK, page{Title: title, Message: msg, Project: p.ProjectName})
		return nil
	}
}
