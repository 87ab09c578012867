package web_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web/webtest"
)

// seedEmails stores n emails of the Env's project created at, of which
// the first bounces bounced at bounceAt and the next complaints drew a
// complaint, and pending more PENDING ones.
func seedEmails(t *testing.T, e *webtest.Env, at time.Time, n, bounces, complaints int) {
	t.Helper()
	err := e.DB.Write(t.Context(), func(tx *storage.Tx) error {
		for i := range n {
			status, bounced, complained := "DELIVERED", any(nil), any(nil)
			switch {
			case i < bounces:
				status, bounced = "BOUNCED", storage.Millis(at)
			case i < bounces+complaints:
				complained = storage.Millis(at)
			}
			id := fmt.Sprintf("seed-%d-%d", at.UnixMilli(), i)
			if _, err := tx.Exec(t.Context(), `INSERT INTO emails (id, project_id, message_id, sender, recipient, subject, status,
				bounced_at, complained_at, created_at, updated_at) VALUES (?, ?, ?, 'a@herald.test', 'r@example.com', 's', ?, ?, ?, ?, ?)`,
				id, e.Project.ID, "<"+id+"@herald.test>", status, bounced, complained, storage.Millis(at), storage.Millis(at)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

type securityJSON struct {
	Status struct {
		ProjectID      string
		IsHealthy      bool
		ShouldDisable  bool
		TwentyFourHour windowJSON
		SevenDay       windowJSON
		AllTime        windowJSON
		IsNewProject   bool
		Violations     []string
		Warnings       []string
	}
	Levels struct {
		Bounce7Day, BounceAllTime, Complaint7Day, ComplaintAllTime string
	}
	IsDisabled bool
}

type windowJSON struct {
	Total, Bounces, Complaints int
	BounceRate, ComplaintRate  float64
}

func getSecurity(t *testing.T, b *browser, projectID string) securityJSON {
	t.Helper()
	var s securityJSON
	for _, path := range []string{"/users/@me/projects/" + projectID + "/security", "/projects/" + projectID + "/security"} {
		r := b.do("GET", path, nil)
		expectStatus(t, r, 200)
		r.Decode(t, &s)
		if s.Status.Violations == nil || s.Status.Warnings == nil {
			t.Fatalf("violations and warnings must be arrays: %s", r.Body)
		}
	}
	return s
}

func TestSecurityThresholds(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	owner := ownEnvProject(t, e, "owner@example.com")
	s := getSecurity(t, owner, e.Project.ID)
	if s.Status.ProjectID != e.Project.ID || !s.Status.IsHealthy || s.Status.ShouldDisable || !s.Status.IsNewProject ||
		s.IsDisabled || s.Levels.Bounce7Day != "healthy" || s.Levels.ComplaintAllTime != "healthy" || s.Status.AllTime.Total != 0 {
		t.Fatalf("new project %+v", s)
	}

	// Under 100 emails the rates do not count, only the ceilings: 9
	// bounces of 20 in a new project are healthy, 10 a warning.
	now := e.Clock.Now()
	seedEmails(t, e, now.Add(-time.Hour), 20, 9, 0)
	s = getSecurity(t, owner, e.Project.ID)
	if s.Levels.Bounce7Day != "healthy" || s.Status.TwentyFourHour.Bounces != 9 || s.Status.TwentyFourHour.BounceRate != 45 {
		t.Fatalf("9 of 20: %+v", s)
	}
	seedEmails(t, e, now.Add(-time.Hour+time.Second), 1, 1, 0)
	s = getSecurity(t, owner, e.Project.ID)
	if s.Levels.Bounce7Day != "warning" || !s.Status.IsHealthy || len(s.Status.Warnings) != 1 || len(s.Status.Violations) != 0 {
		t.Fatalf("10 bounces in 24 h of a new project: %+v", s)
	}

	// 110 emails, 10 bounced 2 days ago: 24 h healthy, 7-day rate 9.09%
	// (warning), all time 9.09% with 10 bounces (critical).
	seedEmails(t, e, now.Add(-48*time.Hour), 90, 0, 0)
	seedEmails(t, e, now.Add(-48*time.Hour+time.Second), 0, 0, 0)
	s = getSecurity(t, owner, e.Project.ID)
	if s.Status.SevenDay.Total != 111 || s.Status.AllTime.Bounces != 10 {
		t.Fatalf("counts %+v", s.Status)
	}
	if s.Levels.BounceAllTime != "critical" || s.Levels.Bounce7Day != "warning" || s.Status.IsHealthy || !s.Status.ShouldDisable {
		t.Fatalf("9%% of 111: %+v", s)
	}
	// Without HERALD_AUTO_DISABLE nothing is disabled.
	if s.IsDisabled {
		t.Fatal("disabled without HERALD_AUTO_DISABLE")
	}
	expectStatus(t, e.Secret("GET", "/contacts", nil), 200)
	// CANCELLED emails are no part of the total.
	if err := e.DB.Write(t.Context(), func(tx *storage.Tx) error {
		_, err := tx.Exec(t.Context(), `UPDATE emails SET status = 'CANCELLED' WHERE id LIKE 'seed-%' AND status = 'DELIVERED'`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if s = getSecurity(t, owner, e.Project.ID); s.Status.AllTime.Total != 10 {
		t.Errorf("total counts CANCELLED: %+v", s.Status.AllTime)
	}
}

func TestComplaintThresholdsOfAnOldProject(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{SessionTTL: 1000 * time.Hour}})
	owner := ownEnvProject(t, e, "owner@example.com")
	e.Clock.Advance(31 * 24 * time.Hour)
	now := e.Clock.Now()
	// 1,000 emails 3 days ago with 1 complaint: 0.1% over 7 days is a
	// warning; all time needs 3 complaints.
	seedEmails(t, e, now.Add(-72*time.Hour), 1000, 0, 1)
	s := getSecurity(t, owner, e.Project.ID)
	if s.Status.IsNewProject || s.Levels.Complaint7Day != "warning" || s.Levels.ComplaintAllTime != "healthy" ||
		s.Status.SevenDay.ComplaintRate != 0.1 {
		t.Fatalf("%+v", s)
	}
	// 12 bounces in 24 h: healthy for an old project (ceiling 50).
	seedEmails(t, e, now.Add(-time.Minute), 12, 12, 0)
	if s = getSecurity(t, owner, e.Project.ID); s.Levels.Bounce7Day != "healthy" {
		t.Fatalf("12 bounces of an old project: %+v", s)
	}
	// 3 complaints of 1,014: 0.296%: critical over 7 days; all time
	// 0.296% >= 0.12 with >= 3 but < 5 complaints: a warning.
	seedEmails(t, e, now.Add(-time.Minute+time.Second), 2, 0, 2)
	s = getSecurity(t, owner, e.Project.ID)
	if s.Levels.Complaint7Day != "critical" || s.Levels.ComplaintAllTime != "warning" || !s.Status.ShouldDisable {
		t.Fatalf("4 complaints: %+v", s)
	}
}

func TestAutoDisable(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true, Accounts: accounts.Settings{AutoDisable: true}})
	owner := ownEnvProject(t, e, "owner@example.com")
	member := signupUser(t, e, "member@example.com")
	owner.addMember(e.Project.ID, member.email, "MEMBER")
	expectStatus(t, e.Secret("GET", "/contacts", nil), 200) // the key is cached
	seedEmails(t, e, e.Clock.Now().Add(-time.Hour), 200, 30, 0)
	// A queued send of the project.
	if err := e.DB.Write(t.Context(), func(tx *storage.Tx) error {
		_, err := tx.Exec(t.Context(), `UPDATE emails SET status = 'PENDING' WHERE id = (SELECT max(id) FROM emails)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	s := getSecurity(t, member, e.Project.ID)
	if !s.IsDisabled || !s.Status.ShouldDisable {
		t.Fatalf("%+v", s)
	}
	expectError(t, e.Secret("GET", "/contacts", nil), 403, "PROJECT_DISABLED")
	r := owner.do("GET", "/users/@me/projects/"+e.Project.ID, nil)
	if r.JSON()["disabled"] != true || r.JSON()["disabledReason"] != "EMAIL_REPUTATION" {
		t.Errorf("project %s", r.Body)
	}
	var pending int
	if err := e.DB.Reader().QueryRow(t.Context(), `SELECT count(*) FROM emails WHERE status = 'PENDING'`).Scan(&pending); err != nil || pending != 0 {
		t.Errorf("%d emails still queued (%v)", pending, err)
	}
	if !strings.Contains(string(r.Body), `"disabled":true`) {
		t.Error(string(r.Body))
	}
}

func TestSetupState(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	owner := ownEnvProject(t, e, "owner@example.com")
	path := "/projects/" + e.Project.ID + "/setup-state"
	r := owner.do("GET", path, nil)
	expectStatus(t, r, 200)
	want := `{"hasSubscription":true,"hasVerifiedDomain":false,"hasSentEmail":false,"contactCount":0,"lastCampaignSentAt":null,"hasEnabledWorkflow":false}`
	if got := strings.TrimSpace(string(r.Body)); got != want {
		t.Errorf("new project:\n%s\nwant\n%s", got, want)
	}
	verifiedDomain(t, e, "herald.test")
	createContact(t, e, map[string]any{"email": "a@example.com", "subscribed": true})
	camp := createCampaign(t, e, campaignBody(map[string]any{"audienceType": "ALL"}))
	expectStatus(t, e.Secret("POST", "/campaigns/"+camp.ID+"/send", nil), 200)
	var st map[string]any
	owner.do("GET", path, nil).Decode(t, &st)
	if st["hasVerifiedDomain"] != true || st["contactCount"] != float64(1) || st["lastCampaignSentAt"] == nil {
		t.Errorf("after a campaign: %v", st)
	}
	expectStatus(t, e.Secret("POST", "/v1/send", map[string]any{"to": "b@example.com", "from": "x@herald.test", "subject": "s", "body": "b"}), 200)
	owner.do("GET", path, nil).Decode(t, &st)
	if st["hasSentEmail"] != true || st["contactCount"] != float64(2) {
		t.Errorf("after a send: %v", st)
	}
}

// The periodic upkeep removes ended sessions and, with auto-disable on,
// disables a project in violation without anyone asking.
func TestAccountUpkeep(t *testing.T) {
	e := webtest.New(t, webtest.Options{Accounts: accounts.Settings{AutoDisable: true, SessionTTL: time.Hour}})
	signupUser(t, e, "a@example.com")
	seedEmails(t, e, e.Clock.Now(), 200, 30, 0)
	// The upkeep's first run (due at the start) must be over before the
	// clock moves: a run that read the clock before the advance and ended
	// after it would schedule the next one past every time this test sets.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var rescheduled int
		if err := e.DB.Reader().QueryRow(t.Context(), `SELECT count(*) FROM jobs WHERE kind = ? AND state = 'queued' AND run_at > ?`,
			accounts.JobAccounts, storage.Millis(e.Clock.Now())).Scan(&rescheduled); err != nil {
			t.Fatal(err)
		}
		if rescheduled == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the upkeep's first run did not end")
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.Clock.Advance(2 * time.Hour)
	deadline = time.Now().Add(10 * time.Second)
	for {
		var sessions int
		var disabled bool
		if err := e.DB.Reader().QueryRow(t.Context(), `SELECT (SELECT count(*) FROM sessions),
			(SELECT disabled FROM projects WHERE id = ?)`, e.Project.ID).Scan(&sessions, &disabled); err != nil {
			t.Fatal(err)
		}
		if sessions == 0 && disabled {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sessions %d, disabled %v", sessions, disabled)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Auto-disable tells the project's owners by platform mail.
func TestAutoDisableMailsTheOwners(t *testing.T) {
	e := webtest.New(t, webtest.Options{Accounts: accounts.Settings{AutoDisable: true, SystemFrom: "no-reply@herald.test"}})
	verifiedDomain(t, e, "herald.test")
	e.RouteMail("example.com")
	owner := ownEnvProject(t, e, "owner@example.com")
	_, tok := mailTo(t, e, "owner@example.com", "/app/verify-email", 1)
	expectStatus(t, e.Do("POST", "/auth/verify-email", "", map[string]any{"token": tok}), 200)
	seedEmails(t, e, e.Clock.Now().Add(-time.Hour), 200, 30, 0)
	if s := getSecurity(t, owner, e.Project.ID); !s.IsDisabled {
		t.Fatalf("%+v", s)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, m := range e.Sink.Messages() {
			if m.To[0] == "owner@example.com" && strings.Contains(htmlPart(t, m.Data), "disabled the project") {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("no notice to the owner")
}
