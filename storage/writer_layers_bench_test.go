package storage

import (
	"context"
	"database/sql/driver"
	"testing"
)

// BenchmarkWriterLayers measures what database/sql adds to one statement
// on the writer's connection: the same UPDATE through Tx.Exec (a statement
// prepared once, database/sql's conn lock and argument conversion) and
// through the driver's own statement (sql.Conn.Raw). The difference is
// the cost of the layers per statement (docs/performance.md, "The writer,
// fifth pass").
func BenchmarkWriterLayers(b *testing.B) {
	ctx := context.Background()
	db, err := Open(ctx, b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	const update = `UPDATE layers SET n = n + 1, s = ?2 WHERE id = ?1`
	const returning = `UPDATE layers SET n = n + 1, s = ?2 WHERE id = ?1 RETURNING id, n, s, t`
	err = db.Write(ctx, func(tx *Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TABLE layers (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, s TEXT, t TEXT)`); err != nil {
			return err
		}
		for i := range 100 {
			if _, err := tx.Exec(ctx, `INSERT INTO layers VALUES (?, 0, 'a', 'some text')`, i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("exec/database-sql", func(b *testing.B) {
		_ = db.Write(ctx, func(tx *Tx) error {
			for i := range b.N {
				if _, err := tx.Exec(ctx, update, i%100, "some value"); err != nil {
					b.Fatal(err)
				}
			}
			return nil
		})
	})
	b.Run("exec/driver", func(b *testing.B) {
		_ = db.Write(ctx, func(tx *Tx) error {
			return tx.conn.Raw(func(dc any) error {
				s, err := dc.(driver.ConnPrepareContext).PrepareContext(ctx, update)
				if err != nil {
					return err
				}
				defer s.Close()
				args := make([]driver.NamedValue, 2)
				for i := range b.N {
					args[0] = driver.NamedValue{Ordinal: 1, Value: int64(i % 100)}
					args[1] = driver.NamedValue{Ordinal: 2, Value: "some value"}
					if _, err := s.(driver.StmtExecContext).ExecContext(ctx, args); err != nil {
						b.Fatal(err)
					}
				}
				return nil
			})
		})
	})
	b.Run("returning/database-sql", func(b *testing.B) {
		_ = db.Write(ctx, func(tx *Tx) error {
			for i := range b.N {
				var id, n int64
				var s, t string
				if err := tx.QueryRow(ctx, returning, i%100, "some value").Scan(&id, &n, &s, &t); err != nil {
					b.Fatal(err)
				}
			}
			return nil
		})
	})
	b.Run("returning/driver", func(b *testing.B) {
		_ = db.Write(ctx, func(tx *Tx) error {
			return tx.conn.Raw(func(dc any) error {
				s, err := dc.(driver.ConnPrepareContext).PrepareContext(ctx, returning)
				if err != nil {
					return err
				}
				defer s.Close()
				args := make([]driver.NamedValue, 2)
				dest := make([]driver.Value, 4)
				for i := range b.N {
					args[0] = driver.NamedValue{Ordinal: 1, Value: int64(i % 100)}
					args[1] = driver.NamedValue{Ordinal: 2, Value: "some value"}
					r, err := s.(driver.StmtQueryContext).QueryContext(ctx, args)
					if err != nil {
						b.Fatal(err)
					}
					if err := r.Next(dest); err != nil {
						b.Fatal(err)
					}
					_, _ = dest[0].(int64), dest[2].(string)
					r.Close()
				}
				return nil
			})
		})
	})
}
