package web_test

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

// upload posts a multipart form with the file in the given field.
func upload(t *testing.T, e *webtest.Env, field, content string) webtest.Response {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("note", "ignored")
	fw, err := mw.CreateFormFile(field, "contacts.csv")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.WriteString(fw, content)
	_ = mw.Close()
	return postRaw(t, e, "/contacts/import", mw.FormDataContentType(), buf.Bytes())
}

func postRaw(t *testing.T, e *webtest.Env, path, contentType string, body []byte) webtest.Response {
	t.Helper()
	req, err := http.NewRequest("POST", e.Server.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.Project.Secret)
	req.Header.Set("Content-Type", contentType)
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return webtest.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

func jobID(t *testing.T, r webtest.Response) string {
	t.Helper()
	expectStatus(t, r, 202)
	id, _ := r.JSON()["jobId"].(string)
	if id == "" {
		t.Fatalf("no jobId: %s", r.Body)
	}
	return id
}

func TestImportContacts(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	existing := createContact(t, e, map[string]any{"email": "old@example.com", "data": map[string]any{"plan": "free", "city": "Oslo"}})
	csv := "\ufeffEmail, plan ,city,subscribed\n" +
		"new@example.com,pro,Bergen,true\n" +
		" OLD@example.com ,pro,,false\n" + // empty city: kept; unsubscribes
		"bad-address,x,y\n" +
		",x,y\n" +
		"\"Quoted@example.com\",\"a,b\",c\n" +
		"short@example.com\n" +
		"long@example.com,a,b,true,extra\n" +
		"new@example.com,team,,\n" // a repeat updates
	id := jobID(t, upload(t, e, "file", csv))
	st := e.WaitJob("/contacts/import/" + id)
	if st["state"] != "completed" || st["progress"] != float64(100) || st["failedReason"] != nil || st["id"] != id {
		t.Fatalf("status %v", st)
	}
	res := st["result"].(map[string]any)
	if res["created"] != float64(3) || res["updated"] != float64(2) || res["rejected"] != float64(3) {
		t.Fatalf("result %v", res)
	}
	wantRows := []any{float64(4), float64(5), float64(8)}
	var rows []any
	for _, e := range res["errors"].([]any) {
		item := e.(map[string]any)
		rows = append(rows, item["row"])
		if item["reason"] == "" {
			t.Fatalf("no reason: %v", item)
		}
	}
	if !reflect.DeepEqual(rows, wantRows) {
		t.Fatalf("rejected rows %v, want %v (%v)", rows, wantRows, res["errors"])
	}

	old := getContact(t, e, existing.ID)
	if old.Subscribed || !reflect.DeepEqual(old.Data, map[string]any{"plan": "pro", "city": "Oslo"}) {
		t.Fatalf("updated contact %+v", old)
	}
	if names := eventNames(contactEvents(t, e, existing.ID)); !reflect.DeepEqual(names, []string{"contact.unsubscribed"}) {
		t.Fatalf("events %v", names)
	}
	var p page[contactJSON]
	e.Secret("GET", "/contacts?search=new@", nil).Decode(t, &p)
	if p.Total != 1 || !p.Data[0].Subscribed || !reflect.DeepEqual(p.Data[0].Data, map[string]any{"plan": "team", "city": "Bergen"}) {
		t.Fatalf("new contact %+v", p.Data)
	}
	e.Secret("GET", "/contacts?search=quoted@", nil).Decode(t, &p)
	if p.Total != 1 || !reflect.DeepEqual(p.Data[0].Data, map[string]any{"plan": "a,b", "city": "c"}) {
		t.Fatalf("quoted row %+v", p.Data)
	}
	e.Secret("GET", "/contacts?search=short@", nil).Decode(t, &p)
	if p.Total != 1 {
		t.Fatal("a row with fewer fields than the header should be imported")
	}
}

func TestImportRefusals(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	expectField(t, upload(t, e, "file", ""), "file", "invalid_csv")
	expectField(t, upload(t, e, "file", "name,email\nx,a@example.com\n"), "file", "invalid_csv")
	expectField(t, upload(t, e, "file", "\"email\n"), "file", "invalid_csv")
	expectField(t, upload(t, e, "other", "email\na@example.com\n"), "file", "invalid_type")
	expectField(t, e.Secret("POST", "/contacts/import", map[string]any{"file": "email\n"}), "file", "invalid_type")
	big := "email\n" + strings.Repeat("someone@example.com\n", (5<<20)/20+1)
	expectError(t, upload(t, e, "file", big), 413, "PAYLOAD_TOO_LARGE")
	huge := "email\n" + strings.Repeat("someone@example.com\n", (7<<20)/20)
	expectError(t, upload(t, e, "file", huge), 413, "PAYLOAD_TOO_LARGE")
	if n := countContacts(t, e); n != 0 {
		t.Fatalf("%d contacts", n)
	}
	// Just under 5 MB is accepted (and queued: this server runs no workers).
	var b strings.Builder
	b.WriteString("email\n")
	for i := 0; b.Len() < 5<<20-40; i++ {
		fmt.Fprintf(&b, "c%07d@example.com\n", i)
	}
	id := jobID(t, upload(t, e, "file", b.String()))
	if st := e.Secret("GET", "/contacts/import/"+id, nil).JSON(); st["state"] != "queued" {
		t.Fatalf("large import %v", st)
	}
}

func TestBulkContacts(t *testing.T) {
	e := webtest.New(t, webtest.Options{})
	var ids []string
	for i := range 4 {
		ids = append(ids, createContact(t, e, map[string]any{"email": fmt.Sprintf("c%d@example.com", i), "subscribed": i%2 == 0}).ID)
	}
	// c0, c2 subscribed; c1, c3 not.
	id := jobID(t, e.Secret("POST", "/contacts/bulk-unsubscribe", map[string]any{"contactIds": []string{ids[0], ids[1], ids[0], "missing"}}))
	st := e.WaitJob("/contacts/bulk/" + id)
	want := map[string]any{"updated": float64(1), "unchanged": float64(1), "notFound": float64(1)}
	if st["state"] != "completed" || !reflect.DeepEqual(st["result"], want) {
		t.Fatalf("unsubscribe %v", st)
	}
	id = jobID(t, e.Secret("POST", "/contacts/bulk-subscribe", map[string]any{"contactIds": ids, "mode": "ids"}))
	st = e.WaitJob("/contacts/bulk/" + id)
	want = map[string]any{"updated": float64(3), "unchanged": float64(1), "notFound": float64(0)}
	if !reflect.DeepEqual(st["result"], want) {
		t.Fatalf("subscribe %v", st)
	}
	evs := contactEvents(t, e, ids[0])
	if !reflect.DeepEqual(eventNames(evs), []string{"contact.subscribed", "contact.unsubscribed"}) || evs[0].Data["reason"] != "bulk" {
		t.Fatalf("events of c0 %+v", evs)
	}
	if names := eventNames(contactEvents(t, e, ids[2])); len(names) != 0 {
		t.Fatalf("unchanged contact got events %v", names)
	}

	id = jobID(t, e.Secret("POST", "/contacts/bulk-delete", map[string]any{"contactIds": ids[:3]}))
	st = e.WaitJob("/contacts/bulk/" + id)
	if !reflect.DeepEqual(st["result"], map[string]any{"deleted": float64(3), "notFound": float64(0)}) {
		t.Fatalf("delete %v", st)
	}
	if n := countContacts(t, e); n != 1 {
		t.Fatalf("%d contacts left", n)
	}
	// A bulk job is not an import job, nor another project's.
	expectError(t, e.Secret("GET", "/contacts/import/"+id, nil), 404, "NOT_FOUND")
	expectError(t, e.Secret("GET", "/contacts/bulk/nope", nil), 404, "NOT_FOUND")
	p2, err := e.App.Accounts.CreateProject(t.Context(), "Second")
	if err != nil {
		t.Fatal(err)
	}
	expectError(t, e.Do("GET", "/contacts/bulk/"+id, p2.Secret, nil), 404, "NOT_FOUND")
}

func TestBulkRefusals(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	many := make([]string, 1001)
	for i := range many {
		many[i] = fmt.Sprint(i)
	}
	for _, path := range []string{"/contacts/bulk-subscribe", "/contacts/bulk-unsubscribe", "/contacts/bulk-delete"} {
		expectField(t, e.Secret("POST", path, map[string]any{}), "contactIds", "too_small")
		expectField(t, e.Secret("POST", path, map[string]any{"contactIds": []string{}}), "contactIds", "too_small")
		expectField(t, e.Secret("POST", path, map[string]any{"contactIds": many}), "contactIds", "too_big")
		expectField(t, e.Secret("POST", path, map[string]any{"contactIds": []string{"a", ""}}), "contactIds.1", "invalid_string")
		expectField(t, e.Secret("POST", path, map[string]any{"contactIds": []string{"a"}, "mode": "filter"}), "mode", "invalid_enum_value")
		jobID(t, e.Secret("POST", path, map[string]any{"contactIds": many[:1000]}))
	}
}

func TestJobStatusWhileQueued(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	id := jobID(t, e.Secret("POST", "/contacts/bulk-delete", map[string]any{"contactIds": []string{"x"}}))
	r := e.Secret("GET", "/contacts/bulk/"+id, nil)
	expectStatus(t, r, 200)
	want := map[string]any{"id": id, "state": "queued", "progress": float64(0), "result": nil, "failedReason": nil}
	if !reflect.DeepEqual(r.JSON(), want) {
		t.Fatalf("queued status %s", r.Body)
	}
}
