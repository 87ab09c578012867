package web

import (
	"encoding/json"

	"github.com/heraldmail/herald/app/messaging"
)

// The fields of sendBody, as bits of the set of those already read.
const (
	sendTo = 1 << iota
	sendSubject
	sendBodyField
	sendTemplate
	sendFrom
	sendName
	sendSubscribed
	sendData
	sendHeaders
	sendReply
	sendAttachments
)

// decodeFast decodes body into b in one pass and reports whether it
// could; b is left partly filled when it could not.
//
// It reads POST /v1/send's body: most bodies take the fast path
// (decodeFastJSON), which reads the body once; encoding/json reads it
// twice (its scanner checks the whole value, then the decoder reads it
// again), and a send's body is mostly one large string, its HTML. Whatever
// the fast path does not know (an unknown or misspelt field, a duplicate,
// a value of another type, a repair encoding/json would make) goes to
// decodeBytes, whose results and errors are the contract.
func (b *sendBody) decodeFast(body []byte) bool {
	c := &jsonCursor{b: body}
	var seen int
	ok := c.object(func(key []byte) bool {
		field := sendField(key)
		if field == 0 || seen&field != 0 {
			return false // unknown, folded or repeated: encoding/json's rules
		}
		seen |= field
		return b.fastValue(c, field)
	})
	return ok && c.peek() == 0 && c.i == len(body)
}

func sendField(key []byte) int {
	switch string(key) {
	case "to":
		return sendTo
	case "subject":
		return sendSubject
	case "body":
		return sendBodyField
	case "template":
		return sendTemplate
	case "from":
		return sendFrom
	case "name":
		return sendName
	case "subscribed":
		return sendSubscribed
	case "data":
		return sendData
	case "headers":
		return sendHeaders
	case "reply":
		return sendReply
	case "attachments":
		return sendAttachments
	}
	return 0
}

func (b *sendBody) fastValue(c *jsonCursor, field int) bool {
	switch field {
	case sendTo:
		return c.rawAddress(&b.To)
	case sendFrom:
		return c.rawAddress(&b.From)
	case sendSubject:
		return c.optionalString(&b.Subject)
	case sendBodyField:
		return c.optionalString(&b.Body)
	case sendTemplate:
		return c.optionalString(&b.Template)
	case sendName:
		return c.optionalString(&b.Name)
	case sendReply:
		return c.optionalString(&b.Reply)
	case sendSubscribed:
		return c.optionalBool(&b.Subscribed)
	case sendData:
		return c.dataObject(&b.Data)
	case sendHeaders:
		return c.stringMap(&b.Headers)
	case sendAttachments:
		return c.attachments(&b.Attachments)
	}
	return false
}

// optionalString reads a string or null into a *string field.
func (c *jsonCursor) optionalString(dst **string) bool {
	if c.peek() == 'n' {
		*dst = nil
		return c.literal("null")
	}
	s, ok := c.str()
	*dst = &s
	return ok
}

// optionalBool reads true, false or null into a *bool field.
func (c *jsonCursor) optionalBool(dst **bool) bool {
	switch c.peek() {
	case 'n':
		*dst = nil
		return c.literal("null")
	case 't', 'f':
		v := c.b[c.i] == 't'
		*dst = &v
		return c.literal("true") || c.literal("false")
	}
	return false
}

// rawAddress reads `to` or `from`, kept raw as encoding/json keeps a
// json.RawMessage: a string (checked), or an object or array (checked by
// encoding/json, small).
func (c *jsonCursor) rawAddress(dst *json.RawMessage) bool {
	switch c.peek() {
	case '"':
		start := c.i
		if _, ok := c.str(); !ok {
			return false
		}
		*dst = c.b[start:c.i]
		return true
	case '{', '[':
		raw, ok := c.composite()
		if !ok || !json.Valid(raw) {
			return false
		}
		*dst = raw
		return true
	}
	return false
}

// dataObject reads `data` in the same pass, as decodeBytes does
// (numbers as json.Number): an object of any values.
func (c *jsonCursor) dataObject(dst *map[string]any) bool {
	if c.peek() != '{' {
		return false
	}
	m, ok := c.freeMap(1)
	*dst = m
	return ok
}

// stringMap reads `headers`.
func (c *jsonCursor) stringMap(dst *map[string]string) bool {
	raw, ok := c.composite()
	return ok && raw[0] == '{' && json.Unmarshal(raw, dst) == nil
}

// attachments reads `attachments` itself: their content, base64, is most
// of a body that has them.
func (c *jsonCursor) attachments(dst *[]messaging.AttachmentInput) bool {
	list := []messaging.AttachmentInput{}
	ok := c.array(func() bool {
		var a messaging.AttachmentInput
		var seen int
		ok := c.object(func(key []byte) bool {
			field, p := attachmentField(&a, key)
			if field == 0 || seen&field != 0 || c.peek() != '"' {
				return false
			}
			seen |= field
			var ok bool
			*p, ok = c.str()
			return ok
		})
		list = append(list, a)
		return ok
	})
	*dst = list
	return ok
}

func attachmentField(a *messaging.AttachmentInput, key []byte) (int, *string) {
	switch string(key) {
	case "filename":
		return 1, &a.Filename
	case "content":
		return 2, &a.Content
	case "contentType":
		return 4, &a.ContentType
	case "contentId":
		return 8, &a.ContentID
	case "disposition":
		return 16, &a.Disposition
	}
	return 0, nil
}
