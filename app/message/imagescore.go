package message

import (
	"strings"
	"unicode/utf8"
)

// ImageOnlyMaxHTML is the length of HTML up to which SpamAssassin's
// HTML_IMAGE_ONLY_04..32 rules (20_html_tests.cf, HTMLEval's
// html_image_only) score any message whose HTML part has an <img>: they
// count the part's characters, markup included, in bands of 400 up to
// 3,200, and whether an img tag occurs, nothing else.
const ImageOnlyMaxHTML = 3200

// HTMLPartLength is the length of the HTML part Build makes of h (a
// fragment is wrapped in <html><body>), counted as the filter counts it:
// characters of the decoded part, with LF line ends, the smaller count.
func HTMLPartLength(h string) int {
	h = wrapFragment(h)
	return utf8.RuneCountInString(h) - strings.Count(h, "\r\n")
}

// HasImage reports whether HTML has an img tag.
func HasImage(h string) bool {
	return containsFold(h, "<img")
}
