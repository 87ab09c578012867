package web

// The fields of trackBody, as bits of the set of those already read.
const (
	trackEmail = 1 << iota
	trackEvent
	trackSubscribed
	trackData
)

// decodeFast decodes body into b in one pass and reports whether it
// could; b is left partly filled when it could not.
//
// It reads POST /v1/track's body: most bodies take the fast path
// (decodeFastJSON), which reads the body once into the values
// encoding/json would give (numbers in data as json.Number); encoding/json
// scans it twice and reflects on every value, which cost a tracked event
// about 6 µs of CPU (docs/performance.md, "The request path of track, open
// and click"). Whatever the fast path does not know (an unknown or folded
// field, a repeat, a value of another type, a repair encoding/json would
// make) goes to decodeBytes, whose results and errors are the contract.
func (b *trackBody) decodeFast(body []byte) bool {
	c := &jsonCursor{b: body}
	var seen int
	ok := c.object(func(key []byte) bool {
		field := trackField(key)
		if field == 0 || seen&field != 0 {
			return false // unknown, folded or repeated: encoding/json's rules
		}
		seen |= field
		switch field {
		case trackEmail:
			return c.optionalString(&b.Email)
		case trackEvent:
			return c.optionalString(&b.Event)
		case trackSubscribed:
			return c.optionalBool(&b.Subscribed)
		}
		return c.freeObject(&b.Data)
	})
	return ok && c.peek() == 0 && c.i == len(body)
}

func trackField(key []byte) int {
	switch string(key) {
	case "email":
		return trackEmail
	case "event":
		return trackEvent
	case "subscribed":
		return trackSubscribed
	case "data":
		return trackData
	}
	return 0
}
