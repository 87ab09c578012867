package messaging

import (
	"regexp"
	"strconv"
)

// Bounce sources: where email.bounce learned of the bounce.
const (
	BounceSourceSMTP = "smtp" // the recipient's server refused the message during delivery
	BounceSourceDSN  = "dsn"  // a delivery status notification mailed to the return path
	BounceSourceSES  = "ses"  // an Amazon SES notification
)

// bounceData is the one data shape of email.bounce, whatever reported it
// (docs/decisions.md), beside the fields every email event carries:
//
//	source          "smtp", "dsn" or "ses"
//	permanent       true (temporary failures are retried, not bounced)
//	code            the SMTP reply code (550), or null when none is known
//	status          the enhanced status code ("5.1.1"), or "" when none is known
//	diagnosticCode  the remote server's reply text, as it gave it
func bounceData(source string, code int, status, diagnostic string) map[string]any {
	if code == 0 {
		code = replyCodeIn(diagnostic)
	}
	if status == "" {
		status = enhancedCodeIn(diagnostic)
	}
	d := map[string]any{"source": source, "permanent": true, "code": nil, "status": status, "diagnosticCode": diagnostic}
	if code > 0 {
		d["code"] = code
	}
	return d
}

var (
	replyCodeRE    = regexp.MustCompile(`(?:^|[\s;])([2-5][0-9][0-9])(?:[\s-]|$)`)
	enhancedCodeRE = regexp.MustCompile(`(?:^|[\s;(])([245]\.[0-9]{1,3}\.[0-9]{1,3})(?:[\s)]|$)`)
)

// replyCodeIn finds the reply code in a diagnostic such as
// "smtp; 550 5.1.1 user unknown".
func replyCodeIn(s string) int {
	m := replyCodeRE.FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func enhancedCodeIn(s string) string {
	if m := enhancedCodeRE.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}
