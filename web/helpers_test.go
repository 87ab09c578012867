package web_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

// contactJSON is a contact as the API returns it.
type contactJSON struct {
	ID         string         `json:"id"`
	Email      string         `json:"email"`
	Subscribed bool           `json:"subscribed"`
	Data       map[string]any `json:"data"`
	CreatedAt  string         `json:"createdAt"`
	UpdatedAt  string         `json:"updatedAt"`
	Meta       *struct {
		IsNew    bool `json:"isNew"`
		IsUpdate bool `json:"isUpdate"`
	} `json:"_meta"`
}

// eventJSON is an event as the API returns it.
type eventJSON struct {
	ID        string         `json:"id"`
	ContactID string         `json:"contactId"`
	Name      string         `json:"name"`
	Data      map[string]any `json:"data"`
	CreatedAt string         `json:"createdAt"`
}

// page is a cursor list.
type page[T any] struct {
	Data    []T    `json:"data"`
	Cursor  string `json:"cursor"`
	HasMore bool   `json:"hasMore"`
	Total   int    `json:"total"`
}

// errorEnvelope is the spec's error body.
type errorEnvelope struct {
	Success *bool `json:"success"`
	Error   struct {
		Code       string           `json:"code"`
		Message    string           `json:"message"`
		StatusCode int              `json:"statusCode"`
		RequestID  string           `json:"requestId"`
		Errors     []fieldErrorJSON `json:"errors"`
		Details    map[string]any   `json:"details"`
		Suggestion string           `json:"suggestion"`
	} `json:"error"`
	Timestamp string `json:"timestamp"`
}

type fieldErrorJSON struct {
	Field    string `json:"field"`
	Message  string `json:"message"`
	Code     string `json:"code"`
	Received any    `json:"received"`
}

// expectError checks an envelope: status, code, and that requestId,
// statusCode and timestamp agree with the response.
func expectError(t *testing.T, r webtest.Response, status int, code string) errorEnvelope {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	var env errorEnvelope
	r.Decode(t, &env)
	if env.Success == nil || *env.Success {
		t.Errorf("success should be false: %s", r.Body)
	}
	if env.Error.Code != code {
		t.Errorf("code %q, want %q: %s", env.Error.Code, code, r.Body)
	}
	if env.Error.StatusCode != status {
		t.Errorf("statusCode %d, want %d", env.Error.StatusCode, status)
	}
	if env.Error.RequestID == "" || env.Error.RequestID != r.Header.Get("X-Request-Id") {
		t.Errorf("requestId %q, header %q", env.Error.RequestID, r.Header.Get("X-Request-Id"))
	}
	if env.Timestamp == "" || env.Error.Message == "" {
		t.Errorf("timestamp and message must be set: %s", r.Body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q", ct)
	}
	return env
}

// expectField checks that a 422 names field with the item code.
func expectField(t *testing.T, r webtest.Response, field, code string) {
	t.Helper()
	env := expectError(t, r, 422, "VALIDATION_ERROR")
	for _, f := range env.Error.Errors {
		if f.Field == field && f.Code == code {
			return
		}
	}
	t.Fatalf("no error item {field %q, code %q}: %s", field, code, r.Body)
}

func expectStatus(t testing.TB, r webtest.Response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
}

// createContact upserts a contact and returns it.
func createContact(t testing.TB, e *webtest.Env, body map[string]any) contactJSON {
	t.Helper()
	r := e.Secret("POST", "/contacts", body)
	if r.Status != 201 && r.Status != 200 {
		t.Fatalf("POST /contacts: %d %s", r.Status, r.Body)
	}
	var c contactJSON
	r.Decode(t, &c)
	return c
}

func getContact(t *testing.T, e *webtest.Env, id string) contactJSON {
	t.Helper()
	r := e.Secret("GET", "/contacts/"+id, nil)
	expectStatus(t, r, 200)
	var c contactJSON
	r.Decode(t, &c)
	return c
}

// contactEvents lists a contact's events, newest first.
func contactEvents(t *testing.T, e *webtest.Env, id string) []eventJSON {
	t.Helper()
	r := e.Secret("GET", "/events/contact/"+id+"?limit=100", nil)
	expectStatus(t, r, 200)
	var p page[eventJSON]
	r.Decode(t, &p)
	return p.Data
}

// eventNames returns the names of events, in order.
func eventNames(evs []eventJSON) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Name
	}
	return out
}

// countNamed counts events of a name.
func countNamed(evs []eventJSON, name string) int {
	n := 0
	for _, ev := range evs {
		if ev.Name == name {
			n++
		}
	}
	return n
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
