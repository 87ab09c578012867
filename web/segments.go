package web

import (
	"encoding/json"
	"net/http"

	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/paging"
)

// segmentBody is the body of POST and PATCH /segments. The condition stays
// raw: app tells a missing one (400) from a malformed one (422 with paths).
type segmentBody struct {
	Name            *string         `json:"name"`
	Description     *string         `json:"description"`
	Type            *string         `json:"type"`
	Condition       json.RawMessage `json:"condition"`
	TrackMembership *bool           `json:"trackMembership"`
}

func (b segmentBody) input() audience.SegmentInput {
	return audience.SegmentInput{Name: b.Name, Description: b.Description, Type: b.Type,
		Condition: b.Condition, TrackMembership: b.TrackMembership}
}

// listSegments serves GET /segments: a bare array, newest first.
func (s *Server) listSegments(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Audience.ListSegments(r.Context(), projectID(r)))
}

// createSegment serves POST /segments.
func (s *Server) createSegment(w http.ResponseWriter, r *http.Request) error {
	var b segmentBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusCreated)(s.app.Audience.CreateSegment(r.Context(), projectID(r), b.input()))
}

// getSegment serves GET /segments/{id}.
func (s *Server) getSegment(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Audience.GetSegment(r.Context(), projectID(r), param(r, "id")))
}

// updateSegment serves PATCH /segments/{id}.
func (s *Server) updateSegment(w http.ResponseWriter, r *http.Request) error {
	var b segmentBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.Audience.UpdateSegment(r.Context(), projectID(r), param(r, "id"), b.input()))
}

// deleteSegment serves DELETE /segments/{id}.
func (s *Server) deleteSegment(w http.ResponseWriter, r *http.Request) error {
	if err := s.app.Audience.DeleteSegment(r.Context(), projectID(r), param(r, "id")); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// segmentContacts serves GET /segments/{id}/contacts.
func (s *Server) segmentContacts(w http.ResponseWriter, r *http.Request) error {
	page, _ := queryInt(r, "page")
	size, _ := queryInt(r, "pageSize")
	return reply(w, http.StatusOK)(s.app.Audience.SegmentContacts(r.Context(), projectID(r), param(r, "id"), paging.PageRequest{Page: page, PageSize: size}))
}

type membersBody struct {
	Emails        []string `json:"emails"`
	CreateMissing bool     `json:"createMissing"`
	Subscribed    *bool    `json:"subscribed"`
}

// addSegmentMembers serves POST /segments/{id}/members.
func (s *Server) addSegmentMembers(w http.ResponseWriter, r *http.Request) error {
	var b membersBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.Audience.AddSegmentMembers(r.Context(), projectID(r), param(r, "id"),
		audience.MembersInput{Emails: b.Emails, CreateMissing: b.CreateMissing, Subscribed: b.Subscribed}))
}

// removeSegmentMembers serves DELETE /segments/{id}/members.
func (s *Server) removeSegmentMembers(w http.ResponseWriter, r *http.Request) error {
	var b membersBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.Audience.RemoveSegmentMembers(r.Context(), projectID(r), param(r, "id"), b.Emails))
}

// computeSegment serves POST /segments/{id}/compute.
func (s *Server) computeSegment(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Audience.ComputeSegment(r.Context(), projectID(r), param(r, "id")))
}

// refreshSegment serves POST /segments/{id}/refresh.
func (s *Server) refreshSegment(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Audience.RefreshSegment(r.Context(), projectID(r), param(r, "id")))
}
