// Package platformmail holds the templates of Herald's own mail to its
// users (email verification, password reset, project notices), compiled
// into the binary.
package platformmail

import "embed"

// FS holds the templates, one HTML file per kind of mail.
//
//go:embed *.html
var FS embed.FS
