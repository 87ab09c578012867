package web_test

import (
	"strings"
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

// A search of 100,000 characters made SQLite refuse the LIKE pattern and
// the list answer 500: every list's search is bounded at 256 characters.
func TestLongSearchIs422(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	long := strings.Repeat("a", 100_000)
	for _, path := range []string{"/contacts", "/templates", "/campaigns"} {
		env := expectError(t, e.Secret("GET", path+"?search="+long, nil), 422, "VALIDATION_ERROR")
		if len(env.Error.Errors) != 1 || env.Error.Errors[0].Field != "search" {
			t.Errorf("%s: %+v", path, env.Error.Errors)
		}
		expectStatus(t, e.Secret("GET", path+"?search="+strings.Repeat("a", 256), nil), 200)
	}
}
