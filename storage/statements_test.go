package storage

import (
	"context"
	"database/sql"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/heraldmail/herald/storage/pgtest"
)

// A statement is one fixed SQL text of storage's code, and where it is.
type statement struct {
	text string
	pos  string // file:line
}

// fixedStatements reads storage's non-test sources and returns every
// statement whose text is a constant: a literal, or literals and string
// constants joined with +, as the code passes them to Exec, Query and
// QueryRow. Statements built at run time (the condition engine's, the
// bitmaps' lists, multi-row inserts) are left to the tests that run them.
func fixedStatements(t *testing.T) []statement {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	consts := map[string]ast.Expr{}
	for _, name := range files {
		// The engine layer's own strings are patterns, not statements.
		if strings.HasSuffix(name, "_test.go") || name == "engine.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, f)
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, s := range g.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							consts[n.Name] = vs.Values[i]
						}
					}
				}
			}
		}
	}
	// sqlStart tells a string that is a statement from any other string.
	sqlStart := regexp.MustCompile(`^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|REPLACE)\b`)
	seen := map[string]bool{}
	var out []statement
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			for _, arg := range call.Args {
				text, ok := constString(arg, consts)
				if !ok || !sqlStart.MatchString(text) || seen[text] {
					continue
				}
				seen[text] = true
				p := fset.Position(arg.Pos())
				out = append(out, statement{text: text, pos: p.Filename + ":" + strconv.Itoa(p.Line)})
			}
			return true
		})
	}
	return out
}

// constString evaluates a constant string expression.
func constString(e ast.Expr, consts map[string]ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.Ident:
		v, ok := consts[e.Name]
		if !ok {
			return "", false
		}
		return constString(v, consts)
	case *ast.ParenExpr:
		return constString(e.X, consts)
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		a, ok := constString(e.X, consts)
		if !ok {
			return "", false
		}
		b, ok := constString(e.Y, consts)
		return a + b, ok
	}
	return "", false
}

// TestEveryStatementPrepares prepares every fixed statement of storage on
// a migrated SQLite database, which tells whole statements from the
// fragments the builders join (those do not prepare), and, with
// HERALD_TEST_DATABASE_URL set, every whole one on PostgreSQL as the
// engine layer turns it (its dialect table entry, or the text with its
// placeholders renumbered). A statement that does not prepare fails here
// rather than at run time in whichever path reaches it first; the failure
// lists every such statement with where it is.
func TestEveryStatementPrepares(t *testing.T) {
	stmts := fixedStatements(t)
	if len(stmts) < 150 {
		t.Fatalf("found %d statements: the source walk is broken", len(stmts))
	}
	ctx := context.Background()
	// A database without a writer: the writer holds the one connection
	// of its pool for as long as it runs.
	lite, err := OpenWithoutMigrating(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	if _, err := Migrate(ctx, lite); err != nil {
		t.Fatal(err)
	}
	liteConn, err := lite.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer liteConn.Close()
	var whole []statement
	for _, s := range stmts {
		if err := prepareOnly(ctx, liteConn, s.text); err == nil {
			whole = append(whole, s)
		} else if !strings.Contains(err.Error(), "incomplete input") && !strings.Contains(s.text, "%") {
			t.Errorf("%s: does not prepare on SQLite: %v\n\t%s", s.pos, err, oneLine(s.text))
		}
	}
	if pgtest.URL() == "" {
		t.Logf("%d whole statements prepare on SQLite; %s is not set, so PostgreSQL is not checked", len(whole), pgtest.EnvURL)
		return
	}
	pg, err := Open(ctx, pgtest.New(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	conn, err := pg.reader.Conn(ctx) // the writer holds the writer pool's one connection
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var failed []string
	for _, s := range whole {
		// The bitmaps of segment counts do not run on PostgreSQL yet
		// (CountAudience and AudiencePage count in SQL there).
		if strings.HasPrefix(s.pos, "bitmap_") {
			continue
		}
		text := pg.pg.text(s.text)
		if err := prepareOnly(ctx, conn, text); err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v\n\t%s", s.pos, err, oneLine(text)))
		}
	}
	slices.Sort(failed)
	if len(failed) > 0 {
		t.Errorf("%d of %d statements do not prepare on PostgreSQL:\n%s", len(failed), len(whole), strings.Join(failed, "\n"))
	}
}

// prepareOnly prepares a statement on a connection and releases it.
func prepareOnly(ctx context.Context, conn *sql.Conn, text string) error {
	s, err := conn.PrepareContext(ctx, text)
	if err != nil {
		return err
	}
	return s.Close()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
