package message

import (
	"mime"
	"strconv"
	"strings"
)

// ParseDisposition maps the API's disposition field to Attachment.Inline:
// "" and "attachment" are regular attachments, "inline" an inline part.
func ParseDisposition(s string) (inline, ok bool) {
	switch strings.ToLower(s) {
	case "", "attachment":
		return false, true
	case "inline":
		return true, true
	}
	return false, false
}

// validContentType accepts "type/subtype" with optional parameters.
func validContentType(ct string) bool {
	// Bounded so that no token of it (a parameter name, say) can carry its
	// header line past 998 characters; RFC 6838 caps type and subtype at
	// 127 each.
	if len(ct) > maxContentTypeLength || strings.ContainsAny(ct, "\r\n") {
		return false
	}
	mediaType, _, err := mime.ParseMediaType(ct)
	typ, sub, _ := strings.Cut(mediaType, "/")
	return err == nil && strings.Count(mediaType, "/") == 1 && typ != "" && sub != "" && len(typ) <= 127 && len(sub) <= 127
}

// maxContentTypeLength bounds an attachment's content type.
const maxContentTypeLength = 255

// validContentID accepts RFC 5322 atext plus "." and "@": what msg-id
// syntax allows inside the brackets, and what HTML can put after "cid:"
// without escaping trouble.
func validContentID(id string) bool {
	if id == "" || len(id) > maxContentIDLength {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && strings.IndexByte("!#$%&'*+-/=?^_`{|}~.@", c) < 0 {
			return false
		}
	}
	return true
}

// sizeText renders a byte count for messages: "10 MB" for whole mebibytes.
func sizeText(n int) string {
	if n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MB"
	}
	return strconv.Itoa(n) + " bytes"
}
