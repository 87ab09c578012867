package web_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

type campaignJSON struct {
	ID                string         `json:"id"`
	Name              string         `json:"name"`
	Subject           string         `json:"subject"`
	From              string         `json:"from"`
	Type              string         `json:"type"`
	Status            string         `json:"status"`
	AudienceType      string         `json:"audienceType"`
	SegmentID         *string        `json:"segmentId"`
	AudienceCondition map[string]any `json:"audienceCondition"`
	ScheduledFor      *string        `json:"scheduledFor"`
	SentAt            *string        `json:"sentAt"`
	TotalRecipients   int            `json:"totalRecipients"`
	SentCount         int            `json:"sentCount"`
	DeliveredCount    int            `json:"deliveredCount"`
	BouncedCount      int            `json:"bouncedCount"`
	ProjectID         string         `json:"projectId"`
}

func campaignBody(extra map[string]any) map[string]any {
	b := map[string]any{"name": "Launch", "subject": "Hello {{name ?? \"there\"}}",
		"body": `<p>Hi</p><p><a href="{{unsubscribeUrl}}">Unsubscribe</a></p>`, "from": "news@herald.test"}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

func createCampaign(t testing.TB, e *webtest.Env, body map[string]any) campaignJSON {
	t.Helper()
	r := e.Secret("POST", "/campaigns", body)
	expectStatus(t, r, 201)
	var env struct {
		Success bool         `json:"success"`
		Data    campaignJSON `json:"data"`
	}
	r.Decode(t, &env)
	if !env.Success || env.Data.ID == "" {
		t.Fatalf("create: %s", r.Body)
	}
	return env.Data
}

func getCampaign(t *testing.T, e *webtest.Env, id string) campaignJSON {
	t.Helper()
	r := e.Secret("GET", "/campaigns/"+id, nil)
	expectStatus(t, r, 200)
	var c campaignJSON
	r.Decode(t, &c)
	return c
}

func TestCampaignCreateAndValidation(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	verifiedDomain(t, e, "herald.test")
	c := createCampaign(t, e, campaignBody(nil))
	if c.Status != "DRAFT" || c.Type != "MARKETING" || c.AudienceType != "ALL" || c.ProjectID != e.Project.ID {
		t.Fatalf("created %+v", c)
	}
	if got := getCampaign(t, e, c.ID); got.Name != "Launch" {
		t.Fatalf("get %+v", got)
	}
	expectError(t, e.Secret("GET", "/campaigns/0190a8a6-0000-7000-8000-000000000000", nil), 404, "CAMPAIGN_NOT_FOUND")

	for _, field := range []string{"name", "subject", "body", "from"} {
		b := campaignBody(nil)
		delete(b, field)
		expectField(t, e.Secret("POST", "/campaigns", b), field, "invalid_type")
	}
	expectField(t, e.Secret("POST", "/campaigns", campaignBody(map[string]any{"audienceType": "SEGMENT"})), "segmentId", "invalid_type")
	expectField(t, e.Secret("POST", "/campaigns", campaignBody(map[string]any{"audienceType": "SEGMENT",
		"segmentId": "0190a8a6-0000-7000-8000-000000000000"})), "segmentId", "segment_not_found")
	expectField(t, e.Secret("POST", "/campaigns", campaignBody(map[string]any{"audienceType": "FILTERED"})), "audienceCondition", "invalid_type")
	bad := cond(filter("email", "contains", "a"), filter("email", "bogus", "b"))
	r := e.Secret("POST", "/campaigns", campaignBody(map[string]any{"audienceType": "FILTERED", "audienceCondition": bad}))
	expectError(t, r, 422, "VALIDATION_ERROR")
	if !containsField(r, "audienceCondition.groups.0.filters.1.operator") {
		t.Fatalf("condition path missing: %s", r.Body)
	}
	expectField(t, e.Secret("POST", "/campaigns", campaignBody(map[string]any{"type": "SPAM"})), "type", "invalid_enum_value")

	r = e.Secret("POST", "/campaigns", campaignBody(map[string]any{"from": "x@unverified.test"}))
	expectError(t, r, 403, "INTERNAL_SERVER_ERROR")

	seg := createSegment(t, e, map[string]any{"name": "VIP", "condition": cond(filter("data.vip", "equals", true))})
	c = createCampaign(t, e, campaignBody(map[string]any{"audienceType": "SEGMENT", "segmentId": seg.ID}))
	if c.SegmentID == nil || *c.SegmentID != seg.ID {
		t.Fatalf("segment campaign %+v", c)
	}
}

func containsField(r webtest.Response, field string) bool {
	var env errorEnvelope
	_ = json.Unmarshal(r.Body, &env)
	for _, f := range env.Error.Errors {
		if f.Field == field {
			return true
		}
	}
	return false
}

func TestCampaignListFiltersSortsAndPages(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	verifiedDomain(t, e, "herald.test")
	for i := range 25 {
		e.Clock.Advance(1000)
		createCampaign(t, e, campaignBody(map[string]any{"name": fmt.Sprintf("C%02d", i), "subject": fmt.Sprintf("Subject %d", i)}))
	}
	var p struct {
		Data       []campaignJSON `json:"data"`
		Page       int            `json:"page"`
		PageSize   int            `json:"pageSize"`
		Total      int            `json:"total"`
		TotalPages int            `json:"totalPages"`
	}
	e.Secret("GET", "/campaigns", nil).Decode(t, &p)
	if p.Page != 1 || p.PageSize != 20 || p.Total != 25 || p.TotalPages != 2 || len(p.Data) != 20 || p.Data[0].Name != "C24" {
		t.Fatalf("default page: %+v", p)
	}
	e.Secret("GET", "/campaigns?page=2&pageSize=10&sort=name&dir=asc", nil).Decode(t, &p)
	if len(p.Data) != 10 || p.Data[0].Name != "C10" || p.TotalPages != 3 {
		t.Fatalf("page 2 by name: %+v", p)
	}
	e.Secret("GET", "/campaigns?pageSize=500&page=0", nil).Decode(t, &p)
	if p.PageSize != 100 || p.Page != 1 || len(p.Data) != 25 {
		t.Fatalf("clamped: page %d size %d len %d", p.Page, p.PageSize, len(p.Data))
	}
	e.Secret("GET", "/campaigns?search=subject%2012", nil).Decode(t, &p)
	if p.Total != 1 || p.Data[0].Name != "C12" {
		t.Fatalf("search: %+v", p)
	}
	e.Secret("GET", "/campaigns?search=NEWS@HERALD&status=DRAFT", nil).Decode(t, &p)
	if p.Total != 25 {
		t.Fatalf("search by sender, status: %d", p.Total)
	}
	e.Secret("GET", "/campaigns?status=SENT", nil).Decode(t, &p)
	if p.Total != 0 || p.Data == nil {
		t.Fatalf("status SENT: %+v", p)
	}
	expectError(t, e.Secret("GET", "/campaigns?status=DONE", nil), 400, "BAD_REQUEST")
}

func TestCampaignUpdateDeleteDuplicate(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	verifiedDomain(t, e, "herald.test")
	c := createCampaign(t, e, campaignBody(nil))
	r := e.Secret("PUT", "/campaigns/"+c.ID, map[string]any{"name": "Renamed", "type": "TRANSACTIONAL"})
	expectStatus(t, r, 200)
	if got := getCampaign(t, e, c.ID); got.Name != "Renamed" || got.Type != "TRANSACTIONAL" || got.Subject != c.Subject {
		t.Fatalf("after PUT: %+v", got)
	}
	expectField(t, e.Secret("PUT", "/campaigns/"+c.ID, map[string]any{"name": ""}), "name", "too_small")

	// SCHEDULED: editable, not deletable.
	expectStatus(t, e.Secret("POST", "/campaigns/"+c.ID+"/send", map[string]any{"scheduledFor": "2026-12-01T10:00:00Z"}), 200)
	expectStatus(t, e.Secret("PUT", "/campaigns/"+c.ID, map[string]any{"subject": "New subject"}), 200)
	expectError(t, e.Secret("DELETE", "/campaigns/"+c.ID, nil), 409, "CONFLICT")

	dup := e.Secret("POST", "/campaigns/"+c.ID+"/duplicate", nil)
	expectStatus(t, dup, 201)
	var d campaignJSON
	dup.Decode(t, &d)
	if d.ID == c.ID || d.Status != "DRAFT" || d.Name != "Renamed (copy)" || d.Subject != "New subject" || d.ScheduledFor != nil {
		t.Fatalf("duplicate: %+v", d)
	}

	// Cancelled before anything went out: a DRAFT again, deletable.
	var cancelled campaignJSON
	e.Secret("POST", "/campaigns/"+c.ID+"/cancel", nil).Decode(t, &cancelled)
	if cancelled.Status != "DRAFT" || cancelled.ScheduledFor != nil {
		t.Fatalf("cancel scheduled: %+v", cancelled)
	}
	expectError(t, e.Secret("POST", "/campaigns/"+c.ID+"/cancel", nil), 409, "CONFLICT")
	expectStatus(t, e.Secret("DELETE", "/campaigns/"+c.ID, nil), 204)
	expectError(t, e.Secret("GET", "/campaigns/"+c.ID, nil), 404, "CAMPAIGN_NOT_FOUND")
}

func TestCampaignSendRejectsBadDates(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	verifiedDomain(t, e, "herald.test")
	c := createCampaign(t, e, campaignBody(nil))
	for _, bad := range []any{"not a date", "2026-13-45", "2025-01-01T00:00:00Z", ""} {
		r := e.Secret("POST", "/campaigns/"+c.ID+"/send", map[string]any{"scheduledFor": bad})
		expectError(t, r, 400, "BAD_REQUEST")
	}
	for _, good := range []string{"2026-12-01", "2026-12-01T10:00", "Tue, 01 Dec 2026 10:00:00 GMT",
		"Tue Dec 01 2026 10:00:00 GMT+0100 (Central European Standard Time)", "2026-12-01T10:00:00.000Z"} {
		r := e.Secret("POST", "/campaigns/"+c.ID+"/send", map[string]any{"scheduledFor": good})
		expectStatus(t, r, 200)
		m := r.JSON()
		data := m["data"].(map[string]any)
		if m["success"] != true || data["status"] != "SCHEDULED" || data["scheduledFor"] == nil || m["message"] == "" {
			t.Fatalf("%q: %s", good, r.Body)
		}
	}
}
