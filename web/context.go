package web

import (
	"context"
	"net/http"

	"github.com/heraldmail/herald/app/accounts"
)

// request carries what the middleware learns about a request to the
// handlers and back out to the access log.
type request struct {
	id      string
	route   string // the routes table's pattern; "" when none matched
	project accounts.Project
	access  accounts.Access // what authorization found: project and role
	params  map[string]string
	bodyErr error // the first failure reading the body (see requestBody)
}

// routeName is the route for logs and metrics: its pattern, or
// "unmatched" for a path no route serves (never the path itself).
func (r *request) routeName() string {
	if r.route == "" {
		return "unmatched"
	}
	return r.route
}

type ctxKey struct{}

func withRequest(r *http.Request, req *request) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), ctxKey{}, req))
}

// reqOf returns the request's state; the outer middleware always sets it.
func reqOf(r *http.Request) *request {
	if req, ok := r.Context().Value(ctxKey{}).(*request); ok {
		return req
	}
	return &request{}
}

func withParams(r *http.Request, params map[string]string) *http.Request {
	reqOf(r).params = params
	return r
}

// param returns a path parameter by the name the routes table gives it.
func param(r *http.Request, name string) string { return reqOf(r).params[name] }

// projectID is the project the request's key belongs to.
func projectID(r *http.Request) string { return reqOf(r).project.ID }
