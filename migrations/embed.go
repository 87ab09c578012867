// Package migrations holds Herald's goose SQL migrations, embedded so that
// the binary migrates its own database at start with no files beside it.
//
// Each database engine has its own set, with matching version numbers:
// sqlite/ is the whole history since the first release; postgres/ starts
// at a baseline numbered like the SQLite version whose schema it
// translates (00023), so that `herald migrate status` reads the same
// version on both. From there on, every schema change is a pair of files
// with the same number, one in each folder; storage's parity test fails
// when the two schemas' tables or columns part.
package migrations

import (
	"embed"
	"io/fs"
)

//go:embed sqlite/*.sql postgres/*.sql
var files embed.FS

// SQLite returns the SQLite set, at its root: goose sees the same file
// names (00001_foundation.sql …) as before the sets were split into
// folders.
func SQLite() fs.FS { return sub("sqlite") }

// Postgres returns the PostgreSQL set, at its root.
func Postgres() fs.FS { return sub("postgres") }

func sub(dir string) fs.FS {
	f, err := fs.Sub(files, dir)
	if err != nil {
		// fs.Sub fails only on an invalid path, and these are constants.
		panic(err)
	}
	return f
}
