package tracking

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/clock/clocktest"
	"github.com/heraldmail/herald/storage"
)

func keptEmail(id string, size int) *engagedEmail {
	return &engagedEmail{EngagedEmail: storage.EngagedEmail{ID: id}, size: size}
}

// The kept emails are bounded in number and in size; the oldest go first.
func TestEngagedEmailsBounded(t *testing.T) {
	c := newEngagedEmails(3, 1600)
	for i := range 5 {
		c.keep(keptEmail(strconv.Itoa(i), 10))
	}
	if len(c.byID) != 3 || c.n != 3 || c.bytes != 30 {
		t.Fatalf("%d kept (%d in the ring, %d bytes), want 3", len(c.byID), c.n, c.bytes)
	}
	for i, want := range []bool{false, false, true, true, true} {
		if _, ok := c.byID[strconv.Itoa(i)]; ok != want {
			t.Errorf("email %d kept: %v, want %v", i, ok, want)
		}
	}
	// By size: 3 emails of 100 bytes and 3 of 10 need 330 of 1600: all fit
	// but the count bound; one of 1000 bytes is over a 16th: not kept.
	c.keep(keptEmail("big", 1000))
	if _, ok := c.byID["big"]; ok || c.bytes != 30 {
		t.Fatalf("an email over a 16th of the bound was kept (%d bytes)", c.bytes)
	}
	c = newEngagedEmails(100, 1600)
	for i := range 40 {
		c.keep(keptEmail(strconv.Itoa(i), 100))
	}
	if c.bytes > 1600 || len(c.byID) != 16 {
		t.Fatalf("%d bytes in %d emails, bound 1600", c.bytes, len(c.byID))
	}
}

// An email read again (stale) replaces the kept one; the old one leaving
// the ring gives back only its size.
func TestEngagedEmailsReplaced(t *testing.T) {
	c := newEngagedEmails(2, 1<<20)
	old, fresh := keptEmail("a", 10), keptEmail("a", 20)
	c.keep(old)
	c.keep(fresh)
	c.keep(keptEmail("b", 5)) // drops old
	if c.byID["a"] != fresh || c.bytes != 25 || c.n != 2 {
		t.Fatalf("kept %p (fresh %p), %d bytes, %d in the ring", c.byID["a"], fresh, c.bytes, c.n)
	}
	c.keep(keptEmail("c", 5)) // drops fresh
	if _, ok := c.byID["a"]; ok || c.bytes != 10 {
		t.Fatalf("a still kept, or %d bytes", c.bytes)
	}
}

// The event data made once per email is what emitEmailEvent makes.
func TestEngagedEventDataIsEmitEmailEventsJSON(t *testing.T) {
	full := storage.EngagedEmail{ID: ids.New(), MessageID: "<m@x>", Sender: "a&b <a@x>", Subject: `"Hi" <b>é</b>`,
		CampaignID: "c1", TemplateID: "t1", WorkflowID: "w1", WorkflowExecutionID: "we1", Source: "smtp"}
	for _, e := range []storage.EngagedEmail{full, {ID: "e", MessageID: "m", Sender: "s", Subject: ""}} {
		for _, link := range []string{"", "https://x.example/?a=1&b=<2>"} {
			for _, first := range []bool{true, false} {
				want := map[string]any{"emailId": e.ID, "messageId": e.MessageID, "subject": e.Subject, "from": e.Sender,
					"isFirst": first}
				for k, v := range map[string]string{"campaignId": e.CampaignID, "templateId": e.TemplateID, "source": e.Source,
					"workflowId": e.WorkflowID, "workflowExecutionId": e.WorkflowExecutionID} {
					if v != "" {
						want[k] = v
					}
				}
				var clicked []byte
				if link != "" {
					want["link"], clicked = link, linkJSON(link)
				}
				b, _ := json.Marshal(want)
				if got := newEventData(e).build(first, clicked); string(got) != string(b) {
					t.Errorf("got  %s\nwant %s", got, b)
				}
			}
		}
	}
}

// engageApp is an app with a project, a contact and a delivered email of
// two links to that contact.
func EngageApp(t *testing.T) (a *Service, clock *clocktest.Fake, projectID, contactID string, e storage.Email) {
	t.Helper()
	ctx := context.Background()
	a = tokenApp(t)
	clock = a.clock.(*clocktest.Fake)
	p, err := a.accounts.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	addr := "ada@example.net"
	c, err := a.audience.UpsertContact(ctx, p.ID, audience.UpsertContactInput{Email: &addr})
	if err != nil {
		t.Fatal(err)
	}
	e = storage.Email{ID: ids.New(), ProjectID: p.ID, ContactID: c.ID, MessageID: "<m@herald.example>",
		Sender: "a@herald.example", Recipient: addr, Status: storage.EmailDelivered,
		Links: []string{"https://a.example/x", "https://b.example/y"}, CreatedAt: a.now()}
	if err := a.db.Write(ctx, func(tx *storage.Tx) error { return tx.InsertEmail(ctx, e) }); err != nil {
		t.Fatal(err)
	}
	return a, clock, p.ID, c.ID, e
}

func (s *Service) clickToken(t *testing.T, emailID string, link int) string {
	t.Helper()
	tok, err := s.emailToken(context.Background(), tokenClick, emailID, link)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func countEvents(t *testing.T, a *Service, projectID, name string) int {
	t.Helper()
	n, err := storage.CountEvents(context.Background(), a.db.Reader(), storage.EventFilter{ProjectID: projectID, Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// An email is read once: a repeat answers from memory, and so does the
// next recorded click, which writes only its event.
func TestEngagementReadsTheEmailOnce(t *testing.T) {
	ctx := context.Background()
	a, clock, projectID, _, e := EngageApp(t)
	tok := a.clickToken(t, e.ID, 1)
	for i := range 3 {
		if got, err := a.RecordClick(ctx, tok); err != nil || got != e.Links[1] {
			t.Fatalf("click %d: %q %v", i, got, err)
		}
	}
	clock.Advance(time.Minute)
	if got, err := a.RecordClick(ctx, tok); err != nil || got != e.Links[1] {
		t.Fatalf("click after a minute: %q %v", got, err)
	}
	open, _ := a.emailToken(ctx, tokenOpen, e.ID, 0)
	if err := a.RecordOpen(ctx, open); err != nil {
		t.Fatal(err)
	}
	if n := a.engaged.reads.Load(); n != 1 {
		t.Errorf("the email was read %d times, want 1", n)
	}
	if n := countEvents(t, a, projectID, event.EventClick); n != 2 {
		t.Errorf("%d clicks recorded, want 2 (one a minute)", n)
	}
	var clicked, opened bool
	if err := a.db.Reader().QueryRow(ctx, `SELECT clicked_at IS NOT NULL, opened_at IS NOT NULL FROM emails WHERE id = ?`,
		e.ID).Scan(&clicked, &opened); err != nil || !clicked || !opened {
		t.Errorf("stamps: clicked %v opened %v %v", clicked, opened, err)
	}
	events, err := storage.ListEvents(ctx, a.db.Reader(), storage.EventFilter{ProjectID: projectID}, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	var firsts []string
	for _, ev := range events {
		var d struct{ IsFirst bool }
		_ = json.Unmarshal(ev.Data, &d)
		firsts = append(firsts, ev.Name+" "+strconv.FormatBool(d.IsFirst))
	}
	if got := strings.Join(firsts, ", "); got != "email.open true, email.click false, email.click true" {
		t.Errorf("events newest first: %s", got)
	}
}

// A deleted contact's email still redirects but records nothing more: the
// kept email, read before the deletion, is not trusted after it.
func TestEngagementAfterContactDeleted(t *testing.T) {
	ctx := context.Background()
	a, clock, projectID, contactID, e := EngageApp(t)
	tok := a.clickToken(t, e.ID, 0)
	if _, err := a.RecordClick(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if err := a.audience.DeleteContact(ctx, projectID, contactID); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if got, err := a.RecordClick(ctx, tok); err != nil || got != e.Links[0] {
		t.Fatalf("click after the contact's deletion: %q %v", got, err)
	}
	if n := countEvents(t, a, projectID, ""); n != 0 {
		t.Errorf("%d events after the contact's deletion, want 0", n)
	}
}

// A write that holds an email read before a deletion committed in the
// same transaction reads it again there.
func TestEngagementInTheDeletionsTransaction(t *testing.T) {
	ctx := context.Background()
	a, _, projectID, contactID, e := EngageApp(t)
	m, err := a.engaged.get(ctx, a.db.Reader(), e.ID)
	if err != nil {
		t.Fatal(err)
	}
	err = a.db.Write(ctx, func(tx *storage.Tx) error {
		a.engaged.Removed(tx)
		if _, err := tx.DeleteContact(ctx, projectID, contactID); err != nil {
			return err
		}
		return a.recordEngagement(ctx, tx, m, "clicked_at", storage.Event{ID: ids.New(), Name: event.EventClick, CreatedAt: a.now()}, nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := countEvents(t, a, projectID, ""); n != 0 {
		t.Errorf("%d events, want 0", n)
	}
}

// After a project reset (its contacts and emails gone, the project kept)
// an email's links are unknown: no event is written for a contact that is
// gone, and no 500.
func TestEngagementAfterProjectReset(t *testing.T) {
	ctx := context.Background()
	a, clock, projectID, _, e := EngageApp(t)
	tok := a.clickToken(t, e.ID, 0)
	if _, err := a.RecordClick(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if _, err := a.accounts.ResetProjectData(ctx, projectID); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if _, err := a.RecordClick(ctx, tok); err != nil {
		var ae *apierr.Error
		if !errors.As(err, &ae) || ae.Kind != apierr.KindNotFound {
			t.Fatalf("click after the project's reset: %v, want its target or not found", err)
		}
	}
	if n := countEvents(t, a, projectID, ""); n != 0 {
		t.Errorf("%d events after the project's reset, want 0", n)
	}
}

// After its project's deletion an email's links are unknown, repeats
// included.
func TestEngagementAfterProjectDeleted(t *testing.T) {
	ctx := context.Background()
	a, clock, projectID, _, e := EngageApp(t)
	tok := a.clickToken(t, e.ID, 0)
	if _, err := a.RecordClick(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if err := a.accounts.DeleteProject(ctx, projectID); err != nil {
		t.Fatal(err)
	}
	for _, step := range []time.Duration{0, time.Minute} {
		clock.Advance(step)
		var ae *apierr.Error
		if got, err := a.RecordClick(ctx, tok); !errors.As(err, &ae) || ae.Kind != apierr.KindNotFound {
			t.Errorf("click %v after the project's deletion: %q %v, want not found", step, got, err)
		}
	}
}

// Every deletion of contacts or of a project makes the kept emails stale.
func TestEveryDeletionMakesKeptEmailsStale(t *testing.T) {
	ctx := context.Background()
	deletions := map[string]func(a *Service, projectID, contactID string) error{
		"bulk": func(a *Service, projectID, contactID string) error {
			return a.db.Write(ctx, func(tx *storage.Tx) error {
				return a.audience.BulkDelete(ctx, tx, []storage.Contact{{ProjectID: projectID, ID: contactID}}, &audience.BulkResult{})
			})
		},
		"reset": func(a *Service, projectID, _ string) error {
			_, err := a.accounts.ResetProjectData(ctx, projectID)
			return err
		},
		"project": func(a *Service, projectID, _ string) error { return a.accounts.DeleteProject(ctx, projectID) },
	}
	for name, deletion := range deletions {
		a, _, projectID, contactID, e := EngageApp(t)
		m, err := a.engaged.get(ctx, a.db.Reader(), e.ID)
		if err != nil {
			t.Fatal(err)
		}
		if err := deletion(a, projectID, contactID); err != nil {
			t.Fatal(err)
		}
		if a.engaged.current(m) {
			t.Errorf("%s deletion: the kept email is still current", name)
		}
	}
}

// A deletion that does not say so (engagedEmails.removed), here straight
// in storage, leaves a kept email whose contact or project is gone: the
// event's insert checks its contact itself, so an open or a click then
// records nothing and answers as for a known deletion (the target or the
// pixel for a deleted contact, not found for a deleted project), never a
// 500.
func TestEngagementAfterAnUnannouncedDeletion(t *testing.T) {
	ctx := context.Background()
	deletions := map[string]func(tx *storage.Tx, projectID, contactID string) error{
		"contact": func(tx *storage.Tx, projectID, contactID string) error {
			_, err := tx.DeleteContact(ctx, projectID, contactID)
			return err
		},
		"project": func(tx *storage.Tx, projectID, _ string) error { return tx.DeleteProject(ctx, projectID) },
	}
	for name, deletion := range deletions {
		a, clock, projectID, contactID, e := EngageApp(t)
		click := a.clickToken(t, e.ID, 1)
		open, _ := a.emailToken(ctx, tokenOpen, e.ID, 0)
		if _, err := a.RecordClick(ctx, click); err != nil {
			t.Fatal(err)
		}
		if err := a.RecordOpen(ctx, open); err != nil {
			t.Fatal(err)
		}
		if err := a.db.Write(ctx, func(tx *storage.Tx) error { return deletion(tx, projectID, contactID) }); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			clock.Advance(time.Minute)
			target, clickErr := a.RecordClick(ctx, click)
			openErr := a.RecordOpen(ctx, open)
			var ae *apierr.Error
			switch {
			case name == "contact" && (clickErr != nil || target != e.Links[1] || openErr != nil):
				t.Errorf("after the contact's deletion: click %q %v, open %v; want the target and the pixel", target, clickErr, openErr)
			case name == "project" && (!errors.As(clickErr, &ae) || ae.Kind != apierr.KindNotFound || !errors.As(openErr, &ae) || ae.Kind != apierr.KindNotFound):
				t.Errorf("after the project's deletion: click %q %v, open %v; want not found", target, clickErr, openErr)
			}
		}
		if n := countEvents(t, a, projectID, ""); n != 0 {
			t.Errorf("%s deleted: %d events left or recorded, want 0", name, n)
		}
	}
}
