package message

import (
	"html"
	"strings"
)

// LooksLikeHTML reports whether a body has any markup: a start or end tag,
// a comment or a doctype. A body without is plain text, whose line breaks
// an HTML reader would join into one paragraph.
func LooksLikeHTML(s string) bool {
	for i := strings.IndexByte(s, '<'); i >= 0 && i+1 < len(s); {
		c := s[i+1]
		if c == '/' || c == '!' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return true
		}
		j := strings.IndexByte(s[i+1:], '<')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// TextToHTML is the HTML part of a plain-text body: escaped, each line
// break kept as <br>.
func TextToHTML(text string) string {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = html.EscapeString(l)
	}
	return strings.Join(lines, "<br>\n")
}

// wrapFragment gives an HTML fragment the <html><body> around it that a
// document has: filters score bare fragments as sloppy bulk mail.
func wrapFragment(h string) string {
	if h == "" || containsFold(h, "<html") || containsFold(h, "<body") {
		return h
	}
	return "<html><body>" + h + "</body></html>"
}

func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := strings.IndexByte(s[i:], '<')
		if j < 0 {
			return false
		}
		i += j
		if i+len(sub) <= len(s) && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}
