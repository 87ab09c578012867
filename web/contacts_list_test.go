package web_test

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// seedContacts creates n contacts c00@example.com.. one millisecond apart,
// every third one unsubscribed, and returns their emails oldest first.
func seedContacts(t *testing.T, e *webtest.Env, n int) []string {
	t.Helper()
	emails := make([]string, n)
	for i := range n {
		emails[i] = fmt.Sprintf("c%02d@example.com", i)
		createContact(t, e, map[string]any{"email": emails[i], "subscribed": i%3 != 0})
		e.Clock.Advance(time.Millisecond)
	}
	return emails
}

func listPage(t *testing.T, e *webtest.Env, q url.Values) page[contactJSON] {
	t.Helper()
	r := e.Secret("GET", "/contacts?"+q.Encode(), nil)
	expectStatus(t, r, 200)
	var p page[contactJSON]
	r.Decode(t, &p)
	return p
}

// listAll follows cursors to the end and returns the emails in order and
// the totals of every page.
func listAll(t *testing.T, e *webtest.Env, q url.Values) (emails []string, totals []int) {
	t.Helper()
	q = cloneValues(q)
	for range 1000 {
		p := listPage(t, e, q)
		for _, c := range p.Data {
			emails = append(emails, c.Email)
		}
		totals = append(totals, p.Total)
		if !p.HasMore {
			if p.Cursor != "" {
				t.Fatalf("last page with cursor %q", p.Cursor)
			}
			return emails, totals
		}
		q.Set("cursor", p.Cursor)
	}
	t.Fatal("pagination does not end")
	return nil, nil
}

func cloneValues(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = slices.Clone(v)
	}
	return out
}

func TestContactListOrdersAndFilters(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	emails := seedContacts(t, e, 25)
	newest := slices.Clone(emails)
	slices.Reverse(newest)
	var subscribed, unsubscribed []string
	for i, em := range emails {
		if i%3 != 0 {
			subscribed = append(subscribed, em)
		} else {
			unsubscribed = append(unsubscribed, em)
		}
	}
	cases := []struct {
		name  string
		query url.Values
		want  []string
	}{
		{"default: newest first", url.Values{"limit": {"7"}}, newest},
		{"createdAt asc", url.Values{"limit": {"7"}, "dir": {"asc"}}, emails},
		{"unknown dir is desc", url.Values{"limit": {"7"}, "dir": {"sideways"}}, newest},
		{"unknown sort is createdAt", url.Values{"limit": {"7"}, "sort": {"name"}, "dir": {"asc"}}, emails},
		{"email asc", url.Values{"limit": {"4"}, "sort": {"email"}, "dir": {"asc"}}, emails},
		{"email desc", url.Values{"limit": {"4"}, "sort": {"email"}}, newest},
		{"subscribed=true", url.Values{"limit": {"5"}, "subscribed": {"true"}, "dir": {"asc"}}, subscribed},
		{"subscribed=false", url.Values{"limit": {"5"}, "subscribed": {"false"}, "dir": {"asc"}}, unsubscribed},
		{"subscribed=maybe means both", url.Values{"subscribed": {"maybe"}, "dir": {"asc"}}, emails},
		{"search is a case-insensitive substring", url.Values{"search": {"C1"}, "limit": {"3"}, "dir": {"asc"}}, emails[10:20]},
		{"search with LIKE characters is literal", url.Values{"search": {"%"}}, nil},
		{"search underscore is literal", url.Values{"search": {"c_1"}}, nil},
		{"search and filter", url.Values{"search": {"c2"}, "subscribed": {"false"}, "dir": {"asc"}}, []string{"c21@example.com", "c24@example.com"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, totals := listAll(t, e, c.query)
			if !reflect.DeepEqual(got, c.want) && (len(got) != 0 || len(c.want) != 0) {
				t.Fatalf("got %v\nwant %v", got, c.want)
			}
			if totals[0] != len(c.want) {
				t.Fatalf("first page total %d, want %d", totals[0], len(c.want))
			}
			for _, n := range totals[1:] {
				if n != 0 {
					t.Fatalf("later pages must have total 0: %v", totals)
				}
			}
		})
	}
}

func TestContactListLimit(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	seedContacts(t, e, 3)
	for _, c := range []struct {
		limit string
		want  int
	}{{"", 3}, {"1", 1}, {"0", 1}, {"-5", 1}, {"abc", 3}, {"2", 2}} {
		p := listPage(t, e, url.Values{"limit": {c.limit}})
		if len(p.Data) != c.want || p.Total != 3 || p.HasMore != (c.want < 3) {
			t.Fatalf("limit %q: %d rows, total %d, hasMore %v", c.limit, len(p.Data), p.Total, p.HasMore)
		}
	}
}

func TestContactListLimitDefaultAndMax(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	for i := range 105 {
		createContact(t, e, map[string]any{"email": fmt.Sprintf("c%03d@example.com", i)})
	}
	if p := listPage(t, e, url.Values{}); len(p.Data) != 20 || !p.HasMore || p.Total != 105 {
		t.Fatalf("default page: %d rows hasMore %v total %d", len(p.Data), p.HasMore, p.Total)
	}
	if p := listPage(t, e, url.Values{"limit": {"1000"}}); len(p.Data) != 100 || !p.HasMore {
		t.Fatalf("limit 1000: %d rows", len(p.Data))
	}
}

// Keyset pagination: rows added or deleted between pages neither repeat
// nor vanish from the rows that were there all along.
func TestContactListStableWhileChanging(t *testing.T) {
	for _, sort := range []string{"createdAt", "email"} {
		t.Run(sort, func(t *testing.T) {
			e := webtest.New(t, webtest.Options{NoWorkers: true})
			emails := seedContacts(t, e, 30)
			q := url.Values{"limit": {"10"}, "sort": {sort}, "dir": {"asc"}}
			first := listPage(t, e, q)
			// Delete a row of the first page and one not yet seen, add rows
			// before and after the cursor.
			deleteByEmail(t, e, emails[2])
			deleteByEmail(t, e, emails[15])
			createContact(t, e, map[string]any{"email": "a-new@example.com"})
			createContact(t, e, map[string]any{"email": "z-new@example.com"})

			var seen []string
			for _, c := range first.Data {
				seen = append(seen, c.Email)
			}
			q.Set("cursor", first.Cursor)
			rest, _ := listAll(t, e, q)
			seen = append(seen, rest...)
			for _, em := range emails {
				if em == emails[15] {
					continue
				}
				if n := countOf(seen, em); n != 1 {
					t.Fatalf("%s seen %d times: %v", em, n, seen)
				}
			}
			if countOf(seen, emails[15]) != 0 {
				t.Fatal("a row deleted before its page was listed")
			}
		})
	}
}

func countOf(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

func deleteByEmail(t *testing.T, e *webtest.Env, email string) {
	t.Helper()
	c := createContact(t, e, map[string]any{"email": email})
	expectStatus(t, e.Secret("DELETE", "/contacts/"+c.ID, nil), 204)
}

// Contacts created in the same millisecond are ordered by id, so pages
// split between them lose nothing.
func TestContactListTiesOnCreatedAt(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	for i := range 9 {
		createContact(t, e, map[string]any{"email": fmt.Sprintf("same%d@example.com", i)})
	}
	for _, dir := range []string{"asc", "desc"} {
		got, _ := listAll(t, e, url.Values{"limit": {"2"}, "dir": {dir}})
		if len(got) != 9 {
			t.Fatalf("%s: %v", dir, got)
		}
		slices.Sort(got)
		if got = slices.Compact(got); len(got) != 9 {
			t.Fatalf("%s: duplicates", dir)
		}
	}
}

func TestContactListBadCursor(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	for _, cur := range []string{"!!!", "e30", "bm90IGpzb24"} {
		expectError(t, e.Secret("GET", "/contacts?cursor="+cur, nil), 400, "BAD_REQUEST")
		expectError(t, e.Secret("GET", "/events?cursor="+cur, nil), 400, "BAD_REQUEST")
	}
}
