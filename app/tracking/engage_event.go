package tracking

import (
	"encoding/json"

	"github.com/heraldmail/herald/storage"
)

// eventData is an email's email.open and email.click event data, made once
// per kept email, so that a write on the single writer only joins three
// pieces: the same JSON emitEmailEvent makes (its keys in json.Marshal's
// sorted order), with isFirst and, for a click, the link between them.
type eventData struct {
	head []byte // {"campaignId":…,"emailId":…,"from":…,"isFirst":
	tail []byte // ,"messageId":…,"source":…,"subject":…,"templateId":…,"workflowExecutionId":…,"workflowId":…}
}

func newEventData(e storage.EngagedEmail) eventData {
	var d eventData
	d.head = append(d.head, '{')
	d.head = appendField(d.head, "campaignId", e.CampaignID, true)
	d.head = appendField(d.head, "emailId", e.ID, false)
	d.head = appendField(d.head, "from", e.Sender, false)
	d.head = append(d.head, `,"isFirst":`...)
	d.tail = appendField(d.tail, "messageId", e.MessageID, false)
	d.tail = appendField(d.tail, "source", e.Source, true)
	d.tail = appendField(d.tail, "subject", e.Subject, false)
	d.tail = appendField(d.tail, "templateId", e.TemplateID, true)
	d.tail = appendField(d.tail, "workflowExecutionId", e.WorkflowExecutionID, true)
	d.tail = appendField(d.tail, "workflowId", e.WorkflowID, true)
	d.tail = append(d.tail, '}')
	d.head = append(d.head[:1], d.head[2:]...) // the first field's comma
	return d
}

// appendField appends ,"key":"value", or nothing for an empty value when
// optional.
func appendField(b []byte, key, value string, optional bool) []byte {
	if optional && value == "" {
		return b
	}
	b = append(b, ',')
	b = appendJSONString(b, key)
	b = append(b, ':')
	return appendJSONString(b, value)
}

// appendJSONString appends s as json.Marshal writes it (HTML escaped).
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always encodes
	return append(b, q...)
}

// build is the event's data; link is the clicked target as JSON (from
// linkJSON), nil for an open.
func (d eventData) build(first bool, link []byte) []byte {
	b := make([]byte, 0, len(d.head)+len(d.tail)+len(link)+16)
	b = append(b, d.head...)
	if first {
		b = append(b, "true"...)
	} else {
		b = append(b, "false"...)
	}
	if link != nil {
		b = append(b, `,"link":`...)
		b = append(b, link...)
	}
	return append(b, d.tail...)
}

// linkJSON is a clicked target as a JSON string for build.
func linkJSON(target string) []byte { return appendJSONString(nil, target) }
