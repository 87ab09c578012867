package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strings"
)

// fieldGroups reads the body of a delivery-status or feedback-report part:
// groups of "Name: value" fields separated by blank lines. Folded lines are
// unfolded. A line that is not a field is skipped rather than failing the
// whole report, since reports come from every kind of mail software.
func fieldGroups(r io.Reader) ([]textproto.MIMEHeader, error) {
	tp := textproto.NewReader(bufio.NewReader(r))
	var groups []textproto.MIMEHeader
	group := textproto.MIMEHeader{}
	for {
		line, err := tp.ReadContinuedLine()
		if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) != "" {
			group.Add(textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(name)), strings.TrimSpace(value))
		}
		if (line == "" || err != nil) && len(group) > 0 {
			groups = append(groups, group)
			group = textproto.MIMEHeader{}
		}
		if errors.Is(err, io.EOF) {
			return groups, nil
		}
		if err != nil {
			return nil, fmt.Errorf("report: %w", err)
		}
	}
}

// typed strips the type of an RFC 3464 typed value ("rfc822; a@b" or
// "smtp; 550 ..."), leaving the value.
func typed(v string) string {
	if _, rest, ok := strings.Cut(v, ";"); ok {
		return strings.TrimSpace(rest)
	}
	return strings.TrimSpace(v)
}

// address is a typed address value without its type and angle brackets.
func address(v string) string {
	return strings.Trim(typed(v), "<> \t")
}

// token is the first word of a value, lower-cased: "failed (bad
// mailbox)" is "failed".
func token(v string) string {
	f := strings.Fields(v)
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(f[0])
}
