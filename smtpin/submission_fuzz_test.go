package smtpin

import (
	"slices"
	"testing"

	"github.com/heraldmail/herald/app/message"
)

// FuzzFromField: the listener checks the domains of the From addresses it
// reads; the application sends the From that app/message reads. For any
// message both accept, they must read the same addresses, or a message
// could pass the check with one From and be sent with another. Seeds in
// testdata/fuzz/FuzzFromField.
func FuzzFromField(f *testing.F) {
	f.Add([]byte("From: Shop <orders@shop.example>\r\nSubject: x\r\n\r\nbody\r\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		checked, rejected := fromAddresses(crlfLines(raw))
		msg, err := message.ParseSubmitted(raw)
		if rejected != nil || err != nil {
			return // refused by one of them: never sent
		}
		var sent []string
		for _, a := range msg.FromAll() {
			sent = append(sent, a.Email)
		}
		if !slices.Equal(checked, sent) {
			t.Fatalf("the listener checks From %q, the message is sent with %q:\n%q", checked, sent, raw)
		}
	})
}
