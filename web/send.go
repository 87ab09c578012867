package web

import (
	"encoding/json"
	"net/http"

	"github.com/heraldmail/herald/app/messaging"
)

// maxSendBody admits a 40 MB message whose attachments arrive base64
// encoded (a third larger), with room for the JSON around them.
const maxSendBody = 56 << 20

type sendBody struct {
	To          json.RawMessage             `json:"to"`
	Subject     *string                     `json:"subject"`
	Body        *string                     `json:"body"`
	Template    *string                     `json:"template"`
	From        json.RawMessage             `json:"from"`
	Name        *string                     `json:"name"`
	Subscribed  *bool                       `json:"subscribed"`
	Data        map[string]any              `json:"data"`
	Headers     map[string]string           `json:"headers"`
	Reply       *string                     `json:"reply"`
	Attachments []messaging.AttachmentInput `json:"attachments"`
}

// send serves POST /v1/send.
func (s *Server) send(w http.ResponseWriter, r *http.Request) error {
	var b sendBody
	if err := decodeFastJSON(r, &b); err != nil {
		return err
	}
	return replyData(w, http.StatusOK)(s.app.Messaging.Send(r.Context(), reqOf(r).project, messaging.SendInput{
		To: b.To, Subject: b.Subject, Body: b.Body, Template: b.Template, From: b.From, Name: b.Name,
		Subscribed: b.Subscribed, Data: b.Data, Headers: b.Headers, Reply: b.Reply, Attachments: b.Attachments,
	}))
}
