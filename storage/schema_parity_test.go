package storage

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/heraldmail/herald/storage/pgtest"
)

// A schema is what the parity test compares: tables with their columns
// (name -> declared type class and nullability), named indexes, views.
type schema struct {
	columns map[string]map[string]column // table -> column -> its shape
	indexes []string                     // indexes created by name (not those of constraints)
	views   []string
	version int64
}

type column struct {
	class   string // "text", "integer", "blob", "any": SQLite's declared types, PostgreSQL's mapped to them
	notNull bool
}

// TestSchemaParity migrates a fresh database on each engine and compares
// their tables, columns (type class and NOT NULL), named indexes, views
// and migration version.
func TestSchemaParity(t *testing.T) {
	if pgtest.URL() == "" {
		t.Skipf("%s is not set: the PostgreSQL schema is not checked", pgtest.EnvURL)
	}
	// The two engines' schemas differ only where the PostgreSQL baseline
	// (migrations/postgres/00023_baseline.sql) says why; anything else is
	// a migration written for one engine and forgotten for the other.
	//
	// Tables only SQLite has: its AUTOINCREMENT bookkeeping, and the
	// version clock of audience_counts, whose versions are sums of
	// sharded counters on PostgreSQL.
	sqliteOnlyTables := []string{"audience_clock", "sqlite_sequence"}
	// Columns only one engine has, as table.column: the untyped NOCASE
	// value of audience_counts is a type and a fold on PostgreSQL, which
	// also has the contacts' numbers, the computed number and instant of
	// a contact value, and the counters' shards.
	sqliteOnlyColumns := []string{"audience_counts.value"}
	postgresOnlyColumns := []string{
		"contacts.num", "events.contact_num",
		"contact_values.vtype", "contact_values.fold", "contact_values.num", "contact_values.ts",
		"contact_values.contact_num",
		"audience_counts.vtype", "audience_counts.fold", "audience_counts.shard",
	}

	ctx := context.Background()
	lite, err := OpenWithoutMigrating(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	if _, err := Migrate(ctx, lite); err != nil {
		t.Fatal(err)
	}
	pg, err := sql.Open("pgx", pgtest.New(t))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	ls, err := sqliteSchema(ctx, lite)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := postgresSchema(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}

	// What herald migrate status reads: the same version on both, and
	// none newer than the binary knows.
	for name, db := range map[string]*sql.DB{"SQLite": lite, "PostgreSQL": pg} {
		have, known, err := Versions(ctx, db)
		if err != nil || have != known || have != ls.version {
			t.Errorf("%s: Versions = %d, %d (%v), want %d, %d", name, have, known, err, ls.version, ls.version)
		}
	}
	if ls.version != ps.version {
		t.Errorf("migration version: SQLite %d, PostgreSQL %d: every migration needs a file of the same number in migrations/sqlite and migrations/postgres",
			ls.version, ps.version)
	}
	for _, table := range sqliteOnlyTables {
		delete(ls.columns, table)
	}
	if a, b := slices.Sorted(maps.Keys(ls.columns)), slices.Sorted(maps.Keys(ps.columns)); !slices.Equal(a, b) {
		t.Errorf("tables differ:\n  only SQLite:     %v\n  only PostgreSQL: %v", minus(a, b), minus(b, a))
	}
	var onlyLite, onlyPG []string
	for table, lcols := range ls.columns {
		pcols := ps.columns[table]
		if pcols == nil {
			continue
		}
		for name, lc := range lcols {
			pc, ok := pcols[name]
			switch {
			case !ok:
				onlyLite = append(onlyLite, table+"."+name)
			case lc != pc && !(lc.class == "any" && pc.class == "text" && lc.notNull == pc.notNull):
				// An untyped SQLite column (contact_values.value) is text
				// beside its type on PostgreSQL.
				t.Errorf("%s.%s: SQLite %+v, PostgreSQL %+v", table, name, lc, pc)
			}
		}
		for name := range pcols {
			if _, ok := lcols[name]; !ok {
				onlyPG = append(onlyPG, table+"."+name)
			}
		}
	}
	slices.Sort(onlyLite)
	slices.Sort(onlyPG)
	if want := slices.Sorted(slices.Values(sqliteOnlyColumns)); !slices.Equal(onlyLite, want) {
		t.Errorf("columns only SQLite has: %v, want %v", onlyLite, want)
	}
	if want := slices.Sorted(slices.Values(postgresOnlyColumns)); !slices.Equal(onlyPG, want) {
		t.Errorf("columns only PostgreSQL has: %v, want %v", onlyPG, want)
	}
	if !slices.Equal(ls.indexes, ps.indexes) {
		t.Errorf("indexes differ:\n  only SQLite:     %v\n  only PostgreSQL: %v",
			minus(ls.indexes, ps.indexes), minus(ps.indexes, ls.indexes))
	}
	if !slices.Equal(ls.views, ps.views) {
		t.Errorf("views: SQLite %v, PostgreSQL %v", ls.views, ps.views)
	}
}

func sqliteSchema(ctx context.Context, db *sql.DB) (schema, error) {
	s := schema{columns: map[string]map[string]column{}}
	tables, err := strings1(ctx, db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'goose_db_version' ORDER BY name`)
	if err != nil {
		return s, err
	}
	for _, table := range tables {
		rows, err := db.QueryContext(ctx, `SELECT name, type, "notnull" OR pk FROM pragma_table_info(?)`, table)
		if err != nil {
			return s, err
		}
		cols := map[string]column{}
		for rows.Next() {
			var name, typ string
			var c column
			if err := rows.Scan(&name, &typ, &c.notNull); err != nil {
				rows.Close()
				return s, err
			}
			c.class = sqliteClass(typ)
			cols[name] = c
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return s, err
		}
		s.columns[table] = cols
	}
	// Indexes with a CREATE statement of their own; those SQLite makes
	// for UNIQUE and PRIMARY KEY constraints have no sql.
	if s.indexes, err = strings1(ctx, db, `SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name`); err != nil {
		return s, err
	}
	if s.views, err = strings1(ctx, db, `SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name`); err != nil {
		return s, err
	}
	err = db.QueryRowContext(ctx, `SELECT max(version_id) FROM goose_db_version WHERE is_applied`).Scan(&s.version)
	return s, err
}

// sqliteClass maps a declared type to its affinity's class.
func sqliteClass(typ string) string {
	switch strings.ToUpper(typ) {
	case "TEXT":
		return "text"
	case "INTEGER":
		return "integer"
	case "BLOB":
		return "blob"
	case "":
		return "any"
	}
	return "other:" + typ
}

func postgresSchema(ctx context.Context, db *sql.DB) (schema, error) {
	s := schema{columns: map[string]map[string]column{}}
	rows, err := db.QueryContext(ctx, `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable = 'NO'
		FROM information_schema.columns c
		JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name <> 'goose_db_version'`)
	if err != nil {
		return s, err
	}
	defer rows.Close()
	for rows.Next() {
		var table, name, typ string
		var c column
		if err := rows.Scan(&table, &name, &typ, &c.notNull); err != nil {
			return s, err
		}
		c.class = postgresClass(typ)
		if s.columns[table] == nil {
			s.columns[table] = map[string]column{}
		}
		s.columns[table][name] = c
	}
	if err := rows.Err(); err != nil {
		return s, err
	}
	// Indexes created by name: not those behind a PRIMARY KEY or UNIQUE
	// constraint, which SQLite does not name either.
	if s.indexes, err = strings1(ctx, db, `SELECT i.indexname FROM pg_indexes i
		WHERE i.schemaname = current_schema()
		  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass)
		ORDER BY i.indexname COLLATE "C"`); err != nil {
		return s, err
	}
	if s.views, err = strings1(ctx, db, `SELECT table_name FROM information_schema.views
		WHERE table_schema = current_schema() ORDER BY table_name COLLATE "C"`); err != nil {
		return s, err
	}
	err = db.QueryRowContext(ctx, `SELECT max(version_id) FROM goose_db_version WHERE is_applied`).Scan(&s.version)
	return s, err
}

// postgresClass maps a PostgreSQL type to the SQLite class it stands for:
// booleans are SQLite's 0/1 integers.
func postgresClass(typ string) string {
	switch typ {
	case "text":
		return "text"
	case "bigint", "boolean":
		return "integer"
	case "bytea":
		return "blob"
	}
	return "other:" + typ
}

// strings1 reads a one-column query.
func strings1(ctx context.Context, db *sql.DB, query string) ([]string, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// minus returns the elements of a not in b.
func minus(a, b []string) []string {
	var out []string
	for _, s := range a {
		if !slices.Contains(b, s) {
			out = append(out, s)
		}
	}
	return out
}
