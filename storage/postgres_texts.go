package storage

// postgresTexts is the dialect table: the PostgreSQL text of every
// statement whose SQLite text PostgreSQL cannot run once its placeholders
// are renumbered, keyed by the SQLite text (a constant shared with the
// call site, so the two cannot drift apart). The statements of the
// condition engine and of the bitmaps, built at run time, switch on the
// engine where they are built instead.
//
// It is built once per DB, at Open, and only read afterwards.
func postgresTexts() map[string]string {
	return map[string]string{}
}
