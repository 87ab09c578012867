package web

import (
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/julienschmidt/httprouter"
)

// This file is the one place that reconciles the API's paths with
// httprouter v1.3.0, which refuses a static segment and a parameter at the
// same position under the same prefix (/contacts/fields beside
// /contacts/:id, /events/stats beside /events/:eventName/usage).
//
// Wherever such a clash exists, the static segment is registered as a
// parameter too, so httprouter sees only parameters there, and the routes
// that end up with the same registered pattern form a group. The group's
// handle matches the request against each route's own pattern, most
// specific first. Handlers never see the difference: they read their
// parameters by the names the routes table gives.

// segment is one piece of a route's path.
type segment struct {
	text  string // literal text, or the parameter's name without ':'
	param bool
}

func splitPath(p string) []segment {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	segs := make([]segment, len(parts))
	for i, s := range parts {
		if name, ok := strings.CutPrefix(s, ":"); ok {
			segs[i] = segment{text: name, param: true}
		} else {
			segs[i] = segment{text: s}
		}
	}
	return segs
}

// registeredPatterns computes, for routes of one method, the pattern each
// is registered under: params renamed by position (httprouter also wants
// one name per position) and clashing statics turned into params.
func registeredPatterns(routes []route) []string {
	norm := make([][]segment, len(routes))
	for i, rt := range routes {
		norm[i] = splitPath(rt.path)
	}
	for changed := true; changed; {
		changed = false
		paramAt := map[string]bool{} // prefix key + position -> some route has a param there
		for _, segs := range norm {
			for i, s := range segs {
				if s.param {
					paramAt[prefixKey(segs[:i])] = true
				}
			}
		}
		for _, segs := range norm {
			for i, s := range segs {
				if !s.param && paramAt[prefixKey(segs[:i])] {
					segs[i] = segment{param: true}
					changed = true
				}
			}
		}
	}
	out := make([]string, len(routes))
	for i, segs := range norm {
		var b strings.Builder
		for pos, s := range segs {
			b.WriteByte('/')
			if s.param {
				b.WriteString(":p" + strconv.Itoa(pos))
			} else {
				b.WriteString(s.text)
			}
		}
		out[i] = b.String()
	}
	return out
}

func prefixKey(segs []segment) string {
	var b strings.Builder
	for _, s := range segs {
		if s.param {
			b.WriteString("/:")
		} else {
			b.WriteString("/" + s.text)
		}
	}
	return b.String()
}

// match reports whether a request path fits a route's own pattern and
// returns its parameters by name.
func match(pattern []segment, path string) (map[string]string, bool) {
	if len(pattern) == 0 {
		return nil, false
	}
	// The path's "/"-separated parts, one by one: every request passes
	// here, and splitting it would allocate the list.
	rest := strings.Trim(path, "/")
	var params map[string]string
	for i, s := range pattern {
		part, tail, more := strings.Cut(rest, "/")
		if more != (i < len(pattern)-1) {
			return nil, false // fewer or more parts than the pattern
		}
		rest = tail
		switch {
		case s.param && part == "":
			return nil, false
		case s.param:
			if params == nil {
				params = map[string]string{}
			}
			params[s.text] = part
		case s.text != part:
			return nil, false
		}
	}
	return params, true
}

// staticCount orders a group: more literal segments, and earlier ones,
// match first, so /contacts/fields wins over /contacts/:id.
func staticScore(segs []segment) int {
	score := 0
	for i, s := range segs {
		if !s.param {
			score += 1 << (16 - i)
		}
	}
	return score
}

type groupEntry struct {
	pattern []segment
	handler http.Handler
}

// newRouter registers the routes. handlerFor builds each route's handler
// chain; notFound answers paths that no route matches.
func newRouter(routes []route, handlerFor func(route) http.Handler, notFound http.Handler) *httprouter.Router {
	r := httprouter.New()
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.HandleMethodNotAllowed = false
	r.NotFound = notFound

	byMethod := map[string][]route{}
	for _, rt := range routes {
		byMethod[rt.method] = append(byMethod[rt.method], rt)
	}
	for method, rts := range byMethod {
		patterns := registeredPatterns(rts)
		groups := map[string][]groupEntry{}
		var order []string
		for i, rt := range rts {
			if _, seen := groups[patterns[i]]; !seen {
				order = append(order, patterns[i])
			}
			groups[patterns[i]] = append(groups[patterns[i]], groupEntry{splitPath(rt.path), handlerFor(rt)})
		}
		for _, p := range order {
			entries := groups[p]
			sort.SliceStable(entries, func(a, b int) bool {
				return staticScore(entries[a].pattern) > staticScore(entries[b].pattern)
			})
			r.Handle(method, p, groupHandle(entries, notFound))
		}
	}
	return r
}

func groupHandle(entries []groupEntry, notFound http.Handler) httprouter.Handle {
	return func(w http.ResponseWriter, r *http.Request, _ httprouter.Params) {
		for _, e := range entries {
			if params, ok := match(e.pattern, r.URL.Path); ok {
				e.handler.ServeHTTP(w, withParams(r, params))
				return
			}
		}
		notFound.ServeHTTP(w, r)
	}
}
