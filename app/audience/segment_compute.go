package audience

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// SegmentRefreshEvery is how often the background job runs.
const SegmentRefreshEvery = 5 * time.Minute

// ComputeResult is the response of POST /segments/{id}/compute.
type ComputeResult struct {
	Added   int `json:"added"`
	Removed int `json:"removed"`
	Total   int `json:"total"`
}

// SegmentSlug is the slug of a segment's events: the name lower-cased,
// keeping letters, digits, spaces and '-', spaces turned into '-', runs of
// '-' collapsed and the ends trimmed ("VIP Customers" → "vip-customers").
// A name with nothing left uses the segment id, so that the event names
// stay segment.<slug>.entry with a slug.
func SegmentSlug(g Segment) string {
	var b strings.Builder
	for _, r := range strings.ToLower(g.Name) {
		switch {
		case r == ' ' || r == '-':
			if s := b.String(); s != "" && !strings.HasSuffix(s, "-") {
				b.WriteByte('-')
			}
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	if slug := strings.Trim(b.String(), "-"); slug != "" {
		return slug
	}
	return g.ID
}

// ComputeSegment brings a tracked dynamic segment's membership up to date
// in one write: contacts that now match and had no member row enter,
// member rows whose contact no longer matches leave, each with its event.
// Because the rows and the events commit together, a contact's change is
// reported by the next compute, and never twice.
func (s *Service) ComputeSegment(ctx context.Context, projectID, id string) (ComputeResult, error) {
	var res ComputeResult
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		g, err := storage.SegmentByID(ctx, tx, projectID, id)
		if err != nil {
			return segmentErr(err)
		}
		if g.Type != storage.SegmentDynamic || !g.TrackMembership {
			return apierr.BadRequest("Only a DYNAMIC segment with trackMembership can be computed; POST /segments/%s/refresh updates the count", id)
		}
		res, err = s.computeSegment(ctx, tx, g)
		return err
	})
	return res, err
}

func (s *Service) computeSegment(ctx context.Context, tx *storage.Tx, g Segment) (ComputeResult, error) {
	aud, err := s.SegmentAudience(ctx, tx, g)
	if err != nil {
		return ComputeResult{}, err
	}
	entered, left, err := storage.MembershipDiff(ctx, tx, aud, g.ID)
	if err != nil {
		return ComputeResult{}, err
	}
	now := s.now()
	if _, err := tx.AddSegmentMembers(ctx, g.ID, entered, now); err != nil {
		return ComputeResult{}, err
	}
	if _, err := tx.RemoveSegmentMembers(ctx, g.ID, left); err != nil {
		return ComputeResult{}, err
	}
	if err := s.emitMembership(ctx, tx, g, entered, left, now); err != nil {
		return ComputeResult{}, err
	}
	total, err := storage.CountSegmentMembers(ctx, tx, g.ID)
	if err != nil {
		return ComputeResult{}, err
	}
	return ComputeResult{Added: len(entered), Removed: len(left), Total: total}, tx.SetSegmentCount(ctx, g.ID, total, now)
}

// emitMembership records segment.<slug>.entry and .exit events.
func (s *Service) emitMembership(ctx context.Context, tx *storage.Tx, g Segment, entered, left []string, now time.Time) error {
	data, err := json.Marshal(map[string]string{"segmentId": g.ID, "segmentName": g.Name})
	if err != nil {
		return err
	}
	prefix := "segment." + SegmentSlug(g)
	events := make([]storage.Event, 0, len(entered)+len(left))
	for _, id := range entered {
		events = append(events, storage.Event{ID: ids.New(), ProjectID: g.ProjectID, ContactID: id,
			Name: prefix + ".entry", Data: data, CreatedAt: now})
	}
	for _, id := range left {
		events = append(events, storage.Event{ID: ids.New(), ProjectID: g.ProjectID, ContactID: id,
			Name: prefix + ".exit", Data: data, CreatedAt: now})
	}
	if err := tx.InsertEvents(ctx, events); err != nil {
		return err
	}
	return s.events.NoteEvents(ctx, tx, events...)
}

// RefreshSegment recounts a segment's members and caches the count: no
// events, no member rows written.
func (s *Service) RefreshSegment(ctx context.Context, projectID, id string) (Segment, error) {
	g, err := s.GetSegment(ctx, projectID, id)
	if err != nil {
		return g, err
	}
	return s.refreshCount(ctx, g)
}

func (s *Service) refreshCount(ctx context.Context, g Segment) (Segment, error) {
	aud, err := s.SegmentAudience(ctx, s.db.Reader(), g)
	if err != nil {
		return g, err
	}
	n, err := storage.CountAudience(ctx, s.db.Scanner(), aud)
	if err != nil {
		return g, err
	}
	g.MemberCount = n
	return g, s.db.Write(ctx, func(tx *storage.Tx) error {
		return tx.SetSegmentCount(ctx, g.ID, n, s.now())
	})
}

// runSegments is the periodic job: tracked dynamic segments are computed,
// the others recounted. A failing segment is logged and skipped, so that
// one bad segment does not starve the rest.
func (s *Service) RunSegments(ctx context.Context, job *queue.RunningJob) (any, error) {
	refs, err := storage.AllSegments(ctx, s.db.Reader())
	if err != nil {
		return nil, err
	}
	for i, ref := range refs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := s.refreshSegment(ctx, ref); err != nil {
			s.log.Warn("segment refresh", "segment_id", ref.ID, "err", err)
		}
		if err := job.Progress(ctx, (i+1)*100/len(refs), nil); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

func (s *Service) refreshSegment(ctx context.Context, ref storage.SegmentRef) error {
	if ref.Type == storage.SegmentDynamic && ref.TrackMembership {
		_, err := s.ComputeSegment(ctx, ref.ProjectID, ref.ID)
		return err
	}
	g, err := s.GetSegment(ctx, ref.ProjectID, ref.ID)
	if err != nil {
		return err
	}
	_, err = s.refreshCount(ctx, g)
	return err
}

// JobSegments refreshes the segments' memberships, periodically. A kind's name is stored in
// its jobs' rows: never rename one.
const JobSegments = "segments.refresh"
