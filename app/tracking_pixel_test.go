package app

import (
	"strings"
	"testing"

	"github.com/heraldmail/herald/app/message"
)

// The pixel goes in only when the HTML part with it is longer than the
// last HTML_IMAGE_ONLY band (3,200 characters), or the content already
// has an image; a fragment counts with the <html><body> it is wrapped in.
func TestWantsPixelAtTheRuleBoundary(t *testing.T) {
	base := "https://mail.example.com"
	overhead := len("<html><body></body></html>") + pixelTagLen + len(base) + len("/t/o/")
	at := strings.Repeat("a", message.ImageOnlyMaxHTML-overhead)
	if wantsPixel(at, base) {
		t.Errorf("pixel in a part of exactly %d characters", message.ImageOnlyMaxHTML)
	}
	if !wantsPixel(at+"b", base) {
		t.Errorf("no pixel in a part of %d characters", message.ImageOnlyMaxHTML+1)
	}
	// Multi-byte text counts in characters, CRLF as one.
	if wantsPixel(strings.Repeat("é", message.ImageOnlyMaxHTML-overhead), base) ||
		wantsPixel(strings.Repeat("\r\n", message.ImageOnlyMaxHTML-overhead), base) {
		t.Error("pixel counted bytes, not characters")
	}
	if !wantsPixel(`<p><IMG src="https://example.com/a.png" alt="a"></p>`, base) {
		t.Error("no pixel beside an image of the content")
	}
}
