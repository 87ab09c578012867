package web

import (
	"reflect"
	"strings"
	"testing"
)

// matchBySplit is match as it was written first, splitting the path: the
// reference the walking version must agree with.
func matchBySplit(pattern []segment, path string) (map[string]string, bool) {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) != len(pattern) {
		return nil, false
	}
	var params map[string]string
	for i, s := range pattern {
		switch {
		case s.param && parts[i] == "":
			return nil, false
		case s.param:
			if params == nil {
				params = map[string]string{}
			}
			params[s.text] = parts[i]
		case s.text != parts[i]:
			return nil, false
		}
	}
	return params, true
}

func TestMatchAgreesWithSplitting(t *testing.T) {
	patterns := []string{"/", "/v1/track", "/t/c/:token", "/contacts/:id", "/contacts/fields",
		"/events/:eventName/usage", "/projects/:id/members/:userId"}
	paths := []string{"", "/", "//", "/v1/track", "/v1/track/", "v1/track", "/v1/track/x", "/v1", "/t/c/abc",
		"/t/c/", "/t/c//", "/t/c/a/b", "/contacts/fields", "/contacts/42", "/contacts//", "/events/signup/usage",
		"/events//usage", "/projects/p1/members/u1", "/projects/p1/members/", "///t/c/x///", "/t//c/x"}
	for _, p := range patterns {
		for _, path := range paths {
			segs := splitPath(p)
			gotParams, got := match(segs, path)
			wantParams, want := matchBySplit(segs, path)
			if got != want || !reflect.DeepEqual(gotParams, wantParams) {
				t.Errorf("match(%q, %q) = %v %v, splitting gives %v %v", p, path, gotParams, got, wantParams, want)
			}
		}
	}
}
