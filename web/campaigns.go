package web

import (
	"encoding/json"
	"net/http"

	"github.com/heraldmail/herald/app/campaigns"
	"github.com/heraldmail/herald/app/paging"
)

// campaignBody is the body of POST /campaigns and PUT /campaigns/{id}.
// The condition stays raw: app parses it with its paths.
type campaignBody struct {
	Name              *string         `json:"name"`
	Description       *string         `json:"description"`
	Subject           *string         `json:"subject"`
	Body              *string         `json:"body"`
	From              *string         `json:"from"`
	FromName          *string         `json:"fromName"`
	ReplyTo           *string         `json:"replyTo"`
	Type              *string         `json:"type"`
	AudienceType      *string         `json:"audienceType"`
	SegmentID         *string         `json:"segmentId"`
	AudienceCondition json.RawMessage `json:"audienceCondition"`
}

func (b campaignBody) input() campaigns.CampaignInput {
	return campaigns.CampaignInput{Name: b.Name, Description: b.Description, Subject: b.Subject, Body: b.Body,
		From: b.From, FromName: b.FromName, ReplyTo: b.ReplyTo, Type: b.Type, AudienceType: b.AudienceType,
		SegmentID: b.SegmentID, AudienceCondition: b.AudienceCondition}
}

// listCampaigns serves GET /campaigns: a numbered page.
func (s *Server) listCampaigns(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	page, _ := queryInt(r, "page")
	size, _ := queryInt(r, "pageSize")
	return reply(w, http.StatusOK)(s.app.Campaigns.ListCampaigns(r.Context(), projectID(r), campaigns.CampaignQuery{
		Page: paging.PageRequest{Page: page, PageSize: size}, Status: q.Get("status"), Search: q.Get("search"),
		Sort: q.Get("sort"), Dir: q.Get("dir")}))
}

// createCampaign serves POST /campaigns: 201 with {success, data}, one of
// the spec's two wrapped dashboard answers.
func (s *Server) createCampaign(w http.ResponseWriter, r *http.Request) error {
	var b campaignBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return replyData(w, http.StatusCreated)(s.app.Campaigns.CreateCampaign(r.Context(), projectID(r), b.input()))
}

// getCampaign serves GET /campaigns/{id}.
func (s *Server) getCampaign(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Campaigns.GetCampaign(r.Context(), projectID(r), param(r, "id")))
}

// updateCampaign serves PUT /campaigns/{id}.
func (s *Server) updateCampaign(w http.ResponseWriter, r *http.Request) error {
	var b campaignBody
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.Campaigns.UpdateCampaign(r.Context(), projectID(r), param(r, "id"), b.input()))
}

// deleteCampaign serves DELETE /campaigns/{id}.
func (s *Server) deleteCampaign(w http.ResponseWriter, r *http.Request) error {
	if err := s.app.Campaigns.DeleteCampaign(r.Context(), projectID(r), param(r, "id")); err != nil {
		return err
	}
	noContent(w)
	return nil
}

// duplicateCampaign serves POST /campaigns/{id}/duplicate.
func (s *Server) duplicateCampaign(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusCreated)(s.app.Campaigns.DuplicateCampaign(r.Context(), projectID(r), param(r, "id")))
}

// sendCampaignResponse is {success, data: {id, name, status, scheduledFor}, message}.
type sendCampaignResponse struct {
	Success bool                         `json:"success"`
	Data    campaigns.CampaignSendResult `json:"data"`
	Message string                       `json:"message"`
}

// sendCampaign serves POST /campaigns/{id}/send.
func (s *Server) sendCampaign(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		ScheduledFor json.RawMessage `json:"scheduledFor"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	res, msg, err := s.app.Campaigns.SendCampaign(r.Context(), projectID(r), param(r, "id"), b.ScheduledFor)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sendCampaignResponse{Success: true, Data: res, Message: msg})
	return nil
}

// cancelCampaign serves POST /campaigns/{id}/cancel.
func (s *Server) cancelCampaign(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Campaigns.CancelCampaign(r.Context(), projectID(r), param(r, "id")))
}

// testCampaign serves POST /campaigns/{id}/test.
func (s *Server) testCampaign(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Email string `json:"email"`
	}
	if err := decodeJSON(r, &b); err != nil {
		return err
	}
	return reply(w, http.StatusOK)(s.app.Campaigns.SendCampaignTest(r.Context(), projectID(r), param(r, "id"), b.Email))
}

// campaignStats serves GET /campaigns/{id}/stats.
func (s *Server) campaignStats(w http.ResponseWriter, r *http.Request) error {
	return reply(w, http.StatusOK)(s.app.Campaigns.GetCampaignStats(r.Context(), projectID(r), param(r, "id")))
}
