// Package migrations holds Herald's goose SQL migrations, embedded so that
// the binary migrates its own database at start with no files beside it.
package migrations

import "embed"

// FS holds every migration file.
//
//go:embed *.sql
var FS embed.FS
