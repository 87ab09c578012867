package tracking

// addPixel puts the open pixel after the content, as the hardening
// contract describes it: sized by attributes, with no style that hides it
// (filters score a hidden element, STY_INVIS_DIRECT) and with an empty alt,
// as a decorative image has. A 1x1 transparent GIF is invisible anyway.
//
// Every tracked HTML part gets it. SpamAssassin's HTML_IMAGE_ONLY_04..32
// still score any image in an HTML part of 3,200 characters or less,
// whatever it looks like, so a short message pays 0.6 to 1.7 points for
// counting its opens, as with every service that counts them; the pixel
// adds no other rule (TestStandardMessagesSpamAssassin).
func addPixel(html, src string) string {
	pixel := `<img src="` + src + `" width="1" height="1" alt="">`
	if i := lastIndexFold(html, "</body>"); i >= 0 {
		return html[:i] + pixel + html[i:]
	}
	return html + pixel
}
