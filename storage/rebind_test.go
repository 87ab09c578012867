package storage

import (
	"strings"
	"testing"
)

func TestRebind(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT 1`, `SELECT 1`},
		{`SELECT a FROM t WHERE id = ? AND p = ?`, `SELECT a FROM t WHERE id = $1 AND p = $2`},
		{`UPDATE t SET a = ?2 WHERE id = ?1 AND b = ?2`, `UPDATE t SET a = $2 WHERE id = $1 AND b = $2`},
		// A bare ? takes the number after the largest so far, as in SQLite.
		{`SELECT ?3, ?, ?1, ?`, `SELECT $3, $4, $1, $5`},
		{`SELECT '?', "a?b", ? -- what?` + "\n" + `, ? /* ?? */, ?`, `SELECT '?', "a?b", $1 -- what?` + "\n" + `, $2 /* ?? */, $3`},
		{`SELECT 'it''s ?', ?`, `SELECT 'it''s ?', $1`},
		{`SELECT $1, $2`, `SELECT $1, $2`},
		{`SELECT ? -- to the end ?`, `SELECT $1 -- to the end ?`},
		{`SELECT 'unclosed ?`, `SELECT 'unclosed ?`},
		{`SELECT ?12`, `SELECT $12`},
	} {
		if got := rebind(c.in); got != c.want {
			t.Errorf("rebind(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzRebind checks what rebind keeps for any text: a text without ? is
// returned as it is, and the output never has more ? than the input.
func FuzzRebind(f *testing.F) {
	for _, s := range []string{"SELECT ?", "SELECT ?1, ?", "'?' \"?\" -- ?\n /* ? */ ?", "?99999999999", "'", "/*", "--"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := rebind(s)
		if !strings.Contains(s, "?") && out != s {
			t.Fatalf("rebind changed a text without placeholders: %q -> %q", s, out)
		}
		if strings.Count(out, "?") > strings.Count(s, "?") {
			t.Fatalf("rebind added a ?: %q -> %q", s, out)
		}
		if rebind(out) != out && strings.Count(out, "?") == 0 {
			t.Fatalf("rebind is not stable: %q -> %q -> %q", s, out, rebind(out))
		}
	})
}
