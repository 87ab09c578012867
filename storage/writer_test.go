package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/pressly/goose/v3"
)

func openTest(t *testing.T) *DB {
	t.Helper()
	db, err := Open(t.Context(), testLocation(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// migrationTest opens a database with no migration applied and the
// migrator that moves it, for the tests of one migration's up and down.
func migrationTest(t *testing.T) (*sql.DB, *goose.Provider) {
	t.Helper()
	sqliteOnly(t, "the up and down of a migration of SQLite's history")
	conn, err := OpenWithoutMigrating(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	p, err := NewMigrator(conn)
	if err != nil {
		t.Fatal(err)
	}
	return conn, p
}

// insertProject is a write that adds one project row.
func insertProject(id string) func(*Tx) error {
	return func(tx *Tx) error {
		now := time.Unix(1, 0)
		return tx.InsertProject(context.Background(), Project{ID: id, Name: id,
			Public: "pk_" + id, Secret: "sk_" + id, CreatedAt: now, UpdatedAt: now})
	}
}

func projectExists(t *testing.T, db *DB, id string) bool {
	t.Helper()
	_, err := ProjectByID(t.Context(), db.Reader(), id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

// batch holds the writer with a blocking write, queues the given writes
// behind it, then lets them all run as one group. It returns each write's
// result.
func batch(t *testing.T, db *DB, ctxs []context.Context, fns []func(*Tx) error) []error {
	t.Helper()
	hold, held := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = db.Write(t.Context(), func(*Tx) error { close(held); <-hold; return nil })
	}()
	<-held
	errs := make([]error, len(fns))
	for i, fn := range fns {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = db.Write(ctxs[i], fn) }()
		for len(db.writes) < i+1 { // queue them in order
			time.Sleep(time.Millisecond)
		}
	}
	close(hold)
	wg.Wait()
	return errs
}

func background(n int) []context.Context {
	ctxs := make([]context.Context, n)
	for i := range ctxs {
		ctxs[i] = context.Background()
	}
	return ctxs
}

func TestGroupCommitIsolatesFailures(t *testing.T) {
	db := openTest(t)
	boom := errors.New("boom")
	var hooks []string
	var mu sync.Mutex
	hook := func(name string) func() {
		return func() { mu.Lock(); hooks = append(hooks, name); mu.Unlock() }
	}
	errs := batch(t, db, background(4), []func(*Tx) error{
		func(tx *Tx) error { tx.OnCommit(hook("a")); return insertProject("a")(tx) },
		func(tx *Tx) error {
			tx.OnCommit(hook("b"))
			if err := insertProject("b")(tx); err != nil {
				return err
			}
			return boom // b's row must go
		},
		func(tx *Tx) error { tx.OnCommit(hook("c")); _ = insertProject("c")(tx); panic("c panics") },
		func(tx *Tx) error { tx.OnCommit(hook("d")); return insertProject("d")(tx) },
	})
	if errs[0] != nil || !errors.Is(errs[1], boom) || errs[2] == nil || errs[3] != nil {
		t.Fatalf("results %v", errs)
	}
	for id, want := range map[string]bool{"a": true, "b": false, "c": false, "d": true} {
		if projectExists(t, db, id) != want {
			t.Errorf("project %s exists: %v, want %v", id, !want, want)
		}
	}
	if fmt.Sprint(hooks) != "[a d]" {
		t.Fatalf("commit hooks ran for %v", hooks)
	}
}

func TestGroupCommitConstraintFailure(t *testing.T) {
	db := openTest(t)
	errs := batch(t, db, background(3), []func(*Tx) error{
		insertProject("x"), insertProject("x"), insertProject("y"),
	})
	if errs[0] != nil || errs[1] == nil || errs[2] != nil {
		t.Fatalf("results %v", errs)
	}
	if !projectExists(t, db, "x") || !projectExists(t, db, "y") {
		t.Fatal("a duplicate undid its neighbours")
	}
}

// A caller whose context ends while its write runs must not undo the
// other writes of its group: SQLite rolls back the whole transaction when
// a statement is interrupted.
func TestGroupCommitSurvivesACancelledWrite(t *testing.T) {
	db := openTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	ctxs := []context.Context{context.Background(), ctx, context.Background()}
	errs := batch(t, db, ctxs, []func(*Tx) error{
		insertProject("before"),
		func(tx *Tx) error {
			if err := insertProject("cancelled")(tx); err != nil {
				return err
			}
			go func() { time.Sleep(2 * time.Millisecond); cancel() }()
			// A write statement long enough to be cancelled while it runs.
			_, err := tx.Exec(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000)
				INSERT INTO idempotency_keys (project_id, key, request, created_at, expires_at)
				SELECT 'cancelled', x, 'r', 0, 0 FROM c`)
			return err
		},
		insertProject("after"),
	})
	if errs[0] != nil || errs[2] != nil {
		t.Fatalf("neighbours of a cancelled write failed: %v", errs)
	}
	if !projectExists(t, db, "before") || !projectExists(t, db, "after") {
		t.Fatal("neighbours of a cancelled write were rolled back")
	}
	if errs[1] != nil || !projectExists(t, db, "cancelled") {
		t.Fatalf("a started write runs to its end: %v", errs[1])
	}
}

func TestWriteCancelledBeforeItRunsDoesNothing(t *testing.T) {
	db := openTest(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := db.Write(ctx, insertProject("p")); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if projectExists(t, db, "p") {
		t.Fatal("cancelled write ran")
	}
}

func TestSingleWriteRollsBack(t *testing.T) {
	db := openTest(t)
	boom := errors.New("boom")
	err := db.Write(t.Context(), func(tx *Tx) error {
		if err := insertProject("p")(tx); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) || projectExists(t, db, "p") {
		t.Fatalf("err %v, exists %v", err, projectExists(t, db, "p"))
	}
	// A panic is an error, and the writer goes on.
	if err := db.Write(t.Context(), func(*Tx) error { panic("x") }); err == nil {
		t.Fatal("panic not reported")
	}
	if err := db.Write(t.Context(), insertProject("q")); err != nil || !projectExists(t, db, "q") {
		t.Fatalf("writer broken after a panic: %v", err)
	}
}

func TestConcurrentWritesAllCommit(t *testing.T) {
	db := openTest(t)
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := db.Write(t.Context(), insertProject(fmt.Sprint("p", i))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	ps, err := ListProjects(t.Context(), db.Reader())
	if err != nil || len(ps) != 200 {
		t.Fatalf("%d projects, %v", len(ps), err)
	}
}

func TestCloseCommitsQueuedWritesThenRefuses(t *testing.T) {
	dir := testLocation(t)
	db, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Write(t.Context(), insertProject("kept")); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(t.Context(), insertProject("late")); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after close: %v", err)
	}
	db, err = Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !projectExists(t, db, "kept") {
		t.Fatal("committed write lost across reopen")
	}
}

func TestReaderRefusesWrites(t *testing.T) {
	db := openTest(t)
	if _, err := db.Reader().Exec(t.Context(), `DELETE FROM projects`); err == nil {
		t.Fatal("reader pool wrote")
	}
	// query_only: even a write smuggled through Query fails.
	rows, err := db.Reader().Query(t.Context(), `INSERT INTO projects (id, name, public_key, secret_key, created_at, updated_at)
		VALUES ('r', 'r', 'pk', 'sk', 0, 0) RETURNING id`)
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	if err == nil || projectExists(t, db, "r") {
		t.Fatal("reader pool wrote through Query")
	}
}

func TestPragmas(t *testing.T) {
	sqliteOnly(t, "the pragmas of every connection")
	db := openTest(t)
	for pragma, want := range map[string]string{"journal_mode": "wal", "foreign_keys": "1", "synchronous": "1", "busy_timeout": "10000"} {
		var got string
		if err := db.Reader().QueryRow(t.Context(), "PRAGMA "+pragma).Scan(&got); err != nil || got != want {
			t.Errorf("reader %s = %q (%v), want %q", pragma, got, err, want)
		}
		err := db.Write(t.Context(), func(tx *Tx) error { return tx.QueryRow(t.Context(), "PRAGMA "+pragma).Scan(&got) })
		if err != nil || got != want {
			t.Errorf("writer %s = %q (%v), want %q", pragma, got, err, want)
		}
	}
}

// Writes racing Close either commit (and say so) or get ErrClosed; none
// hangs, and none reports success without its row.
func TestWritesRacingClose(t *testing.T) {
	dir := testLocation(t)
	db, err := Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	committed := map[string]bool{}
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				id := fmt.Sprintf("w%d-%d", w, i)
				err := db.Write(context.Background(), insertProject(id))
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				committed[id] = true
				mu.Unlock()
			}
		}()
	}
	time.Sleep(20 * time.Millisecond)
	db.Close()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("writes racing Close hang")
	}
	db, err = Open(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for id := range committed {
		if !projectExists(t, db, id) {
			t.Fatalf("write %s reported success but is missing", id)
		}
	}
}
