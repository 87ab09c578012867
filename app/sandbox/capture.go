package sandbox

import (
	"bytes"
	"context"
	"errors"
	"mime"
	"net/mail"
	"strings"
	"time"

	msgauth "github.com/emersion/go-msgauth/dkim"

	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/smtpout"
	"github.com/heraldmail/herald/storage"
)

// DKIM results of a captured message.
const (
	DKIMPass = "pass"
	DKIMFail = "fail"
)

// Send captures a message instead of sending it: the messaging.Mailer
// the delivery job calls in the sandbox. Every recipient gets the one
// stored copy, and an acceptance like a receiving server's; a failure to
// store is a temporary failure, retried like a server that was down.
func (s *Service) Send(ctx context.Context, m smtpout.Message) []smtpout.Result {
	id := ids.New()
	raw := received(m, id, s.now())
	err := s.capture(ctx, id, m, raw)
	out := make([]smtpout.Result, len(m.To))
	for i, rcpt := range m.To {
		out[i] = smtpout.Result{Recipient: rcpt, Delivered: true, Code: 250, EnhancedCode: "2.0.0",
			Message: "2.0.0 Captured in the sandbox as " + id, MXHost: "sandbox"}
		if err != nil {
			out[i] = smtpout.Result{Recipient: rcpt, Temporary: true, Code: 451, EnhancedCode: "4.3.0",
				Message: "4.3.0 The sandbox could not store the message: " + err.Error(), MXHost: "sandbox"}
		}
	}
	if err != nil {
		s.log.Error("sandbox capture", "err", err.Error())
	}
	return out
}

// received is the message as the recipient's server keeps it: the
// envelope sender as Return-Path and a Received field naming the sandbox
// above the bytes Herald sent (which a DKIM signature does not cover).
func received(m smtpout.Message, id string, now time.Time) []byte {
	var b bytes.Buffer
	b.WriteString("Return-Path: <" + oneLine(m.From) + ">\r\n")
	b.WriteString("Received: by herald-sandbox with ESMTP id " + id + "\r\n\tfor <" +
		oneLine(strings.Join(m.To, ">, <")) + ">; " + now.UTC().Format(time.RFC1123Z) + "\r\n")
	b.Write(m.Data)
	return b.Bytes()
}

// oneLine keeps an envelope address from breaking the field it is put in.
func oneLine(s string) string { return strings.NewReplacer("\r", "", "\n", "").Replace(s) }

// capture checks the message's DKIM signature, finds the email whose
// Message-ID it carries, and stores it.
func (s *Service) capture(ctx context.Context, id string, m smtpout.Message, raw []byte) error {
	head, _ := splitHeader(raw)
	var from, subject, messageID string
	for _, f := range headerFields(head) {
		switch strings.ToLower(f.name) {
		case "from":
			if from == "" {
				from = displayAddress(f.value)
			}
		case "subject":
			if subject == "" {
				subject = decodeWords(f.value)
			}
		case "message-id":
			messageID = f.value
		}
	}
	row := storage.SandboxMessage{ID: id, MailFrom: m.From, HeaderFrom: from, Recipients: m.To, Subject: subject,
		DKIM: s.checkDKIM(ctx, raw), Raw: raw, CreatedAt: s.now()}
	if row.Recipients == nil {
		row.Recipients = []string{}
	}
	if messageID != "" {
		e, err := storage.EmailByMessageID(ctx, s.db.Reader(), messageID)
		switch {
		case err == nil:
			row.ProjectID, row.EmailID = e.ProjectID, e.ID
		case !errors.Is(err, storage.ErrNotFound):
			return err
		}
	}
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		return tx.InsertSandboxMessage(ctx, row, s.keep, s.maxBytes)
	})
}

// displayAddress is a From field as a mail client shows it: "Name
// <addr>", or the bare address; as written when it does not parse.
func displayAddress(v string) string {
	a, err := (&mail.AddressParser{WordDecoder: &mime.WordDecoder{}}).Parse(v)
	switch {
	case err != nil:
		return decodeWords(v)
	case a.Name == "":
		return valid(a.Address)
	}
	return valid(a.Name + " <" + a.Address + ">")
}

// checkDKIM verifies the message's signatures with go-msgauth, its key
// lookups answered from the keys Herald holds: pass when one verifies.
func (s *Service) checkDKIM(ctx context.Context, raw []byte) string {
	opts := &msgauth.VerifyOptions{LookupTXT: func(name string) ([]string, error) {
		return s.senders.PublishedDKIM(ctx, name)
	}}
	verifs, err := msgauth.VerifyWithOptions(bytes.NewReader(raw), opts)
	if err != nil {
		return DKIMFail
	}
	for _, v := range verifs {
		if v.Err == nil {
			return DKIMPass
		}
	}
	return DKIMFail
}
