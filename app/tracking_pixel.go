package app

import (
	"github.com/heraldmail/herald/app/message"
)

// pixelTagLen is the length of the pixel's markup without its URL.
const pixelTagLen = len(`<img src="" width="1" height="1" alt="">`)

// wantsPixel decides whether a message gets the open pixel. SpamAssassin's
// HTML_IMAGE_ONLY_04..32 score 0.6 to 2.8 points for any image in an HTML
// part of 3,200 characters or less, whatever the image looks like, so in
// a short message the pixel alone would cost more than the whole rest of
// the message. The pixel goes in when the part with it is longer than
// that, or when the content has an image of its own (the rule fires
// either way, and the pixel adds nothing to it). A message without the
// pixel cannot count opens: its email says so (openTracked false).
func wantsPixel(html, base string) bool {
	if message.HasImage(html) {
		return true
	}
	// The token's exact length is not known before it is signed; count
	// the shortest URL it could make, so that the part is surely long
	// enough.
	withPixel := message.HTMLPartLength(html) + pixelTagLen + len(base) + len("/t/o/")
	return withPixel > message.ImageOnlyMaxHTML
}

// addPixel puts the pixel after the content, sized by attributes, with no
// style that hides it (filters score a hidden element, STY_INVIS_DIRECT),
// and with an empty alt, as a decorative image has. A 1x1 transparent GIF
// is invisible anyway.
func addPixel(html, src string) string {
	pixel := `<img src="` + src + `" width="1" height="1" alt="">`
	if i := lastIndexFold(html, "</body>"); i >= 0 {
		return html[:i] + pixel + html[i:]
	}
	return html + pixel
}
