package report

import (
	"errors"
	"strings"
	"testing"
)

// crlf turns a readable fixture into wire format.
func crlf(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// postfixDSN is a bounce as Postfix sends it, with the whole returned message.
const postfixDSN = `From: MAILER-DAEMON@mx.example.net (Mail Delivery System)
To: bounce+abc@bounce.herald.test
Subject: Undelivered Mail Returned to Sender
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status;
	boundary="B1"

--B1
Content-Type: text/plain; charset=us-ascii

I'm sorry to have to inform you that your message could not be delivered.

--B1
Content-Type: message/delivery-status

Reporting-MTA: dns; mx.example.net
X-Postfix-Queue-ID: 4F1C2
Arrival-Date: Thu, 15 Jan 2026 12:00:00 +0000

Final-Recipient: rfc822; gone@example.net
Original-Recipient: rfc822;gone@example.net
Action: failed
Status: 5.1.1
Remote-MTA: dns; inbox.example.net
Diagnostic-Code: smtp; 550 5.1.1 <gone@example.net>: Recipient address
    rejected: User unknown

--B1
Content-Type: message/rfc822

Message-ID: <abc123@herald.test>
From: hello@herald.test
Subject: hi

body
--B1--
`

func TestParsePostfixDSN(t *testing.T) {
	rep, err := Parse(strings.NewReader(crlf(postfixDSN)))
	if err != nil {
		t.Fatal(err)
	}
	if rep.DSN == nil || rep.Feedback != nil {
		t.Fatalf("report = %+v", rep)
	}
	if rep.DSN.ReportingMTA != "mx.example.net" || rep.OriginalMessageID != "<abc123@herald.test>" {
		t.Errorf("reporting MTA %q, original %q", rep.DSN.ReportingMTA, rep.OriginalMessageID)
	}
	r, ok := rep.DSN.About("GONE@example.net")
	if !ok || !r.Permanent() {
		t.Fatalf("recipient = %+v", r)
	}
	want := RecipientStatus{FinalRecipient: "gone@example.net", OriginalRecipient: "gone@example.net",
		Action: "failed", Status: "5.1.1", RemoteMTA: "inbox.example.net",
		DiagnosticCode: "smtp; 550 5.1.1 <gone@example.net>: Recipient address rejected: User unknown"}
	if r != want {
		t.Errorf("recipient\n got %+v\nwant %+v", r, want)
	}
}

// A delay notice, base64-encoded status part, headers only, no per-message group.
const delayedDSN = `Content-Type: multipart/report; report-type="delivery-status"; boundary=XX

--XX
Content-Type: text/plain

Still trying.
--XX
Content-Type: message/delivery-status
Content-Transfer-Encoding: base64

RmluYWwtUmVjaXBpZW50OiByZmM4MjI7IGFkYUBleGFtcGxlLm5ldApBY3Rpb246IGRlbGF5ZWQg
KHRyeWluZykKU3RhdHVzOiA0LjQuNyAodGltZWQgb3V0KQo=
--XX
Content-Type: text/rfc822-headers

Message-Id:  <d1@herald.test>
Subject: x
--XX--
`

func TestParseDelayedBase64DSN(t *testing.T) {
	rep, err := Parse(strings.NewReader(crlf(delayedDSN)))
	if err != nil {
		t.Fatal(err)
	}
	r, ok := rep.DSN.About("someone-else@example.net") // the only block speaks for the message
	if !ok || r.Action != "delayed" || r.Status != "4.4.7" || r.Permanent() {
		t.Fatalf("recipient = %+v", r)
	}
	if rep.OriginalMessageID != "<d1@herald.test>" {
		t.Errorf("original = %q", rep.OriginalMessageID)
	}
}

func TestExpiredAfterTemporaryFailuresIsNotPermanent(t *testing.T) {
	r := RecipientStatus{Action: "failed", Status: "4.4.7"}
	if r.Permanent() {
		t.Error("failed 4.4.7 is an expiry, not a permanent bounce")
	}
}

func TestAboutPicksTheNamedRecipient(t *testing.T) {
	d := &DSN{Recipients: []RecipientStatus{
		{FinalRecipient: "a@x.test", Action: "delivered", Status: "2.0.0"},
		{FinalRecipient: "b@x.test", Action: "failed", Status: "5.2.1"},
	}}
	if r, ok := d.About("b@x.test"); !ok || r.Status != "5.2.1" {
		t.Errorf("About(b) = %+v", r)
	}
	if _, ok := d.About("c@x.test"); ok {
		t.Error("several blocks, none named: no verdict")
	}
}

// arf is the example of RFC 5965 section B.2, quoted-printable added.
const arf = `From: <abusedesk@example.com>
To: <bounce+abc@bounce.herald.test>
Subject: FW: Earn money
MIME-Version: 1.0
Content-Type: multipart/report; report-type=feedback-report;
     boundary="part1_13d.2e68ed54_boundary"

--part1_13d.2e68ed54_boundary
Content-Type: text/plain; charset="US-ASCII"
Content-Transfer-Encoding: 7bit

This is an email abuse report for an email message received from IP
192.0.2.1 on Thu, 8 Mar 2005 14:00:00 EDT.

--part1_13d.2e68ed54_boundary
Content-Type: message/feedback-report
Content-Transfer-Encoding: quoted-printable

Feedback-Type: abuse
User-Agent: SomeGenerator/1.0
Version: 1
Original-Mail-From: <bounce+abc@bounce.herald.test>
Original-Rcpt-To: <user@example.com>
Arrival-Date: Thu, 8 Mar 2005 14:00:00 EDT
Reporting-MTA: dns; mail.example.com
Source-IP: 192.0.2.1=
23

--part1_13d.2e68ed54_boundary
Content-Type: message/rfc822
Content-Disposition: inline

From: <hello@herald.test>
Received: from mailserver.example.net
Subject: Earn money
To: <user@example.com>
Message-ID: <8787KJKJ3K4J3K4J3K4J3.mail@herald.test>
Date: Thu, 02 Sep 2004 12:31:03 -0500

Spam Spam Spam
--part1_13d.2e68ed54_boundary--
`

func TestParseARF(t *testing.T) {
	rep, err := Parse(strings.NewReader(crlf(arf)))
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Feedback
	if f == nil || rep.DSN != nil || !f.Complaint() {
		t.Fatalf("report = %+v", rep)
	}
	if f.UserAgent != "SomeGenerator/1.0" || f.OriginalMailFrom != "bounce+abc@bounce.herald.test" ||
		len(f.OriginalRcptTo) != 1 || f.OriginalRcptTo[0] != "user@example.com" ||
		f.ReportingMTA != "mail.example.com" || f.SourceIP != "192.0.2.123" {
		t.Errorf("feedback = %+v", f)
	}
	if rep.OriginalMessageID != "<8787KJKJ3K4J3K4J3K4J3.mail@herald.test>" {
		t.Errorf("original = %q", rep.OriginalMessageID)
	}
}

func TestNotSpamFeedbackIsNoComplaint(t *testing.T) {
	f := &Feedback{FeedbackType: "not-spam"}
	if f.Complaint() {
		t.Error("not-spam is no complaint")
	}
}

func TestOtherMailIsNotAReport(t *testing.T) {
	for name, msg := range map[string]string{
		"auto-reply":      "From: ada@example.net\nSubject: Out of office\nAuto-Submitted: auto-replied\n\nI am away.\n",
		"multipart/mixed": "Content-Type: multipart/mixed; boundary=b\n\n--b\nContent-Type: text/plain\n\nhi\n--b--\n",
		"report without a status part": "Content-Type: multipart/report; report-type=delivery-status; boundary=b\n\n" +
			"--b\nContent-Type: text/plain\n\nYour mail failed.\n--b--\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Parse(strings.NewReader(crlf(msg))); !errors.Is(err, ErrNotReport) {
				t.Errorf("err = %v, want ErrNotReport", err)
			}
		})
	}
}

func TestBrokenReportIsAnError(t *testing.T) {
	msg := "Content-Type: multipart/report; report-type=delivery-status\n\nno boundary\n"
	_, err := Parse(strings.NewReader(crlf(msg)))
	if err == nil || errors.Is(err, ErrNotReport) {
		t.Errorf("err = %v, want a parse error", err)
	}
}
