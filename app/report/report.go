// Package report reads the machine-readable reports that mail systems send
// back about a message: delivery status notifications (DSN, RFC 3464) and
// abuse feedback reports (ARF, RFC 5965). It only parses; what a report
// means for an email is app's business.
package report

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
)

// ErrNotReport is mail that is not a multipart/report with a delivery
// status or feedback part: an auto-reply, an out-of-office, a human.
var ErrNotReport = errors.New("report: not a delivery status or feedback report")

// Report is one parsed multipart/report. Exactly one of DSN and Feedback
// is set.
type Report struct {
	DSN      *DSN
	Feedback *Feedback
	// OriginalMessageID is the Message-ID of the message the report is
	// about, from its returned message or headers, when it has them.
	OriginalMessageID string
}

// maxFieldsBytes bounds the machine-readable part; real ones are a few
// hundred bytes, and a report is read whole into memory.
const maxFieldsBytes = 1 << 20

// Parse reads a message. It returns ErrNotReport for mail that is not a
// report, and another error for a report too broken to read.
func Parse(r io.Reader) (*Report, error) {
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/report" {
		return nil, ErrNotReport
	}
	if params["boundary"] == "" {
		return nil, errors.New("report: multipart/report without a boundary")
	}
	rep, err := readParts(multipart.NewReader(msg.Body, params["boundary"]))
	if err != nil {
		return nil, err
	}
	if rep.DSN == nil && rep.Feedback == nil {
		return nil, ErrNotReport
	}
	return rep, nil
}

// readParts walks the report's parts. The report type is taken from the
// machine-readable part itself rather than the report-type parameter,
// which some senders get wrong.
func readParts(mr *multipart.Reader) (*Report, error) {
	rep := &Report{}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return rep, nil
		}
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
		if err := readPart(rep, p); err != nil {
			return nil, err
		}
	}
}

func readPart(rep *Report, p *multipart.Part) error {
	mt, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type"))
	body := decoded(p)
	switch mt {
	case "message/delivery-status", "message/global-delivery-status":
		groups, err := fieldGroups(io.LimitReader(body, maxFieldsBytes))
		if err != nil {
			return err
		}
		rep.DSN = dsnFrom(groups)
	case "message/feedback-report":
		groups, err := fieldGroups(io.LimitReader(body, maxFieldsBytes))
		if err != nil {
			return err
		}
		rep.Feedback = feedbackFrom(groups)
	case "message/rfc822", "message/global", "text/rfc822-headers",
		"message/rfc822-headers", "message/global-headers":
		rep.OriginalMessageID = messageID(body)
	}
	return nil
}

// decoded undoes a base64 transfer encoding; multipart already undoes
// quoted-printable.
func decoded(p *multipart.Part) io.Reader {
	if strings.EqualFold(strings.TrimSpace(p.Header.Get("Content-Transfer-Encoding")), "base64") {
		return base64.NewDecoder(base64.StdEncoding, p)
	}
	return p
}

// messageID reads the Message-ID of a returned message or header block.
// Only the headers are read; multipart skips the rest of the part.
func messageID(r io.Reader) string {
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(msg.Header.Get("Message-Id"))
}
