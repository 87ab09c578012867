package web_test

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/web/webtest"
)

// importResult is an import job's result.
type importResult struct {
	Created, Updated, Rejected int
	Errors                     []struct {
		Row    int
		Reason string
	}
}

// runImport uploads a CSV, waits for its job and returns the result.
func runImport(t *testing.T, e *webtest.Env, csv string) importResult {
	t.Helper()
	id := jobID(t, upload(t, e, "file", csv))
	st := e.WaitJob("/contacts/import/" + id)
	if st["state"] != "completed" {
		t.Fatalf("import job %v", st)
	}
	var res importResult
	webtest.Response{Body: []byte(mustJSON(t, st["result"]))}.Decode(t, &res)
	return res
}

func rejectedRows(res importResult) []int {
	rows := []int{}
	for _, e := range res.Errors {
		rows = append(rows, e.Row)
	}
	return rows
}

// A file saved with CR line ends (old Mac spreadsheets) imported nothing
// and reported success.
func TestImportAcceptsCRLFAndCREndings(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	for i, end := range []string{"\n", "\r\n", "\r"} {
		csv := strings.Join([]string{"email,plan", fmt.Sprintf("a%d@example.com,pro", i),
			fmt.Sprintf("b%d@example.com,free", i), fmt.Sprintf("c%d@example.com,", i)}, end) + end
		res := runImport(t, e, csv)
		if res.Created != 3 || res.Rejected != 0 {
			t.Fatalf("line end %q: %+v", end, res)
		}
		c := findContact(t, e, fmt.Sprintf("b%d@example.com", i))
		if d, _ := c["data"].(map[string]any); d["plan"] != "free" {
			t.Fatalf("line end %q: %v", end, c)
		}
	}
}

// One bad quote failed the whole job: now the malformed row is rejected
// with its row number and the rest is imported.
func TestImportRejectsAMalformedRowAndImportsTheRest(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	csv := "email,name\n" +
		"a@example.com,Ann\n" +
		"b@example.com,Bo\"b\n" + // row 3: a quote in an unquoted field
		"c@example.com,\"Cy\"x\n" + // row 4: text after the closing quote
		"d@example.com,\"Di\n" + // row 5: a quote that never closes
		"e@example.com,Ed\n" +
		"f@example.com,\"Multi\nline\"\n" + // row 7, one record on two lines
		"g@example.com,Gus\n"
	res := runImport(t, e, csv)
	if res.Created != 4 || res.Rejected != 3 || !reflect.DeepEqual(rejectedRows(res), []int{3, 4, 5}) {
		t.Fatalf("result %+v", res)
	}
	for _, e := range res.Errors {
		if e.Reason == "" {
			t.Fatalf("no reason: %+v", res.Errors)
		}
	}
	for _, email := range []string{"a@example.com", "e@example.com", "f@example.com", "g@example.com"} {
		if c := findContact(t, e, email); c == nil {
			t.Fatalf("%s not imported", email)
		}
	}
	if d, _ := findContact(t, e, "f@example.com")["data"].(map[string]any); d["name"] != "Multi\nline" {
		t.Fatalf("multi-line field: %v", d)
	}
}

// Duplicate header names were merged silently.
func TestImportRefusesDuplicateHeaders(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	for csv, names := range map[string][]string{
		"email,plan,city,plan\na@example.com,x,y,z\n":              {"plan"},
		"email,Email\na@example.com,b@example.com\n":               {"Email"},
		"email,subscribed,SUBSCRIBED,n,n\na@example.com,1,0,a,b\n": {"SUBSCRIBED", "n"},
	} {
		env := expectError(t, upload(t, e, "file", csv), 422, "VALIDATION_ERROR")
		if len(env.Error.Errors) != 1 || env.Error.Errors[0].Field != "file" {
			t.Fatalf("%q: %+v", csv, env.Error)
		}
		for _, n := range names {
			if !strings.Contains(env.Error.Errors[0].Message, `"`+n+`"`) {
				t.Fatalf("%q: message %q does not name %q", csv, env.Error.Errors[0].Message, n)
			}
		}
	}
	var jobs int
	_ = e.DB.Reader().QueryRow(t.Context(), `SELECT COUNT(*) FROM jobs`).Scan(&jobs)
	if n := countContacts(t, e); n != 0 || jobs != 0 {
		t.Fatalf("%d contacts, %d jobs", n, jobs)
	}
}

// subscribed=maybe was accepted (as "not given").
func TestImportSubscribedValues(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	rows := []string{"email,subscribed"}
	want := map[string]bool{}
	for i, v := range []string{"true", "FALSE", "Yes", "no", "1", "0", " TRUE "} {
		email := fmt.Sprintf("s%d@example.com", i)
		rows = append(rows, email+","+v)
		want[email] = map[string]bool{"true": true, "yes": true, "1": true}[strings.ToLower(strings.TrimSpace(v))]
	}
	rows = append(rows, "bad1@example.com,maybe", "bad2@example.com,t", "empty@example.com,")
	res := runImport(t, e, strings.Join(rows, "\n")+"\n")
	if res.Created != 8 || res.Rejected != 2 || !reflect.DeepEqual(rejectedRows(res), []int{9, 10}) {
		t.Fatalf("result %+v", res)
	}
	if !strings.Contains(res.Errors[0].Reason, "maybe") || !strings.Contains(res.Errors[0].Reason, "subscribed") {
		t.Fatalf("reason %q", res.Errors[0].Reason)
	}
	for email, sub := range want {
		if c := findContact(t, e, email); c["subscribed"] != sub {
			t.Fatalf("%s subscribed %v, want %v", email, c["subscribed"], sub)
		}
	}
	if c := findContact(t, e, "empty@example.com"); c["subscribed"] != true || findContact(t, e, "bad1@example.com") != nil {
		t.Fatalf("empty cell or bad row: %v", c)
	}
}

// findContact returns the contact with exactly this email, or nil.
func findContact(t *testing.T, e *webtest.Env, email string) map[string]any {
	t.Helper()
	data, _ := e.Secret("GET", "/contacts?search="+url.QueryEscape(email), nil).JSON()["data"].([]any)
	for _, c := range data {
		if m := c.(map[string]any); m["email"] == email {
			return m
		}
	}
	return nil
}

// importRows is the size of the large import: 100,000 rows, or 2,000
// under the race detector, where SQLite runs some twenty times slower
// (.ci/run also runs this test without it).
func importRows() int {
	if raceDetector {
		return 2000
	}
	return 100000
}

// A large file with 1% bad rows of every kind: every good row lands and
// every bad one is reported with its row number.
func TestImportLargeFileReportsEveryBadRow(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	n := importRows()
	var b strings.Builder
	b.WriteString("email,plan,subscribed\r\n")
	var wantRows []int
	bad := []string{"not-an-email,x,1", "b@example.com,\"open", "c@example.com,x,maybe", "d@example.com,x,1,extra", ",x,1"}
	for i := range n {
		row := i + 2
		if i%100 == 99 {
			b.WriteString(bad[(i/100)%len(bad)] + "\r\n")
			wantRows = append(wantRows, row)
			continue
		}
		fmt.Fprintf(&b, "u%06d@example.com,p%d,%s\r\n", i, i%7, []string{"yes", "no", "1", ""}[i%4])
	}
	start := time.Now()
	id := jobID(t, upload(t, e, "file", b.String()))
	st := waitJobFor(t, e, "/contacts/import/"+id, 2*time.Minute)
	t.Logf("%d rows (%d KB) imported in %v", n, b.Len()>>10, time.Since(start))
	var res importResult
	webtest.Response{Body: []byte(mustJSON(t, st["result"]))}.Decode(t, &res)
	good := n - len(wantRows)
	if st["state"] != "completed" || res.Created != good || res.Rejected != len(wantRows) {
		t.Fatalf("state %v, created %d (want %d), rejected %d (want %d)", st["state"], res.Created, good, res.Rejected, len(wantRows))
	}
	if got := rejectedRows(res); !reflect.DeepEqual(got, wantRows) {
		t.Fatalf("rejected rows differ: %d reported, %d expected", len(got), len(wantRows))
	}
	if c := countContacts(t, e); c != good {
		t.Fatalf("%d contacts stored, want %d", c, good)
	}
}

// waitJobFor polls a job status endpoint until the job has finished.
func waitJobFor(t *testing.T, e *webtest.Env, path string, limit time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		m := e.Secret("GET", path, nil).JSON()
		if s := m["state"]; s == "completed" || s == "failed" {
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("job %s did not finish in %v", path, limit)
	return nil
}

// A multipart body that breaks off or has no closing boundary is the
// client's mistake: 400, not 500.
func TestImportMalformedMultipartIs400(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	const ct = "multipart/form-data; boundary=XYZ"
	for _, body := range []string{
		"--XYZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\nemail\na@example.com\n", // no closing boundary
		"--XYZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nx",                                          // cut in a part before the file
		"garbage without any boundary",
		"--XYZ\r\nno headers end",
	} {
		r := postRaw(t, e, "/contacts/import", ct, []byte(body))
		if r.Status != 400 {
			t.Errorf("%q: %d %s", body, r.Status, r.Body)
			continue
		}
		expectError(t, r, 400, "BAD_REQUEST")
	}
	expectError(t, postRaw(t, e, "/contacts/import", "multipart/form-data", []byte("x")), 400, "BAD_REQUEST")
	if n := countContacts(t, e); n != 0 {
		t.Fatalf("%d contacts", n)
	}
}
