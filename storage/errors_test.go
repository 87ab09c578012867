package storage

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// An error leaving storage names the operation that failed, and its cause
// stays reachable with errors.Is and errors.As.
func TestErrorsNameTheOperation(t *testing.T) {
	db := openTest(t)
	ctx := t.Context()
	now := time.Now()

	// A foreign key's failure: the driver's error is still there to ask.
	err := db.Write(ctx, func(tx *Tx) error {
		return tx.InsertSession(ctx, Session{TokenHash: "h", UserID: "nobody", CreatedAt: now, ExpiresAt: now.Add(time.Hour)})
	})
	var driver *sqlite.Error
	var pgDriver *pgconn.PgError
	switch {
	case err == nil || !strings.HasPrefix(err.Error(), "storage.Tx.InsertSession: ") || !isForeignKeyViolation(err):
		t.Fatalf("foreign key: %v", err)
	case db.pg != nil && (!errors.As(err, &pgDriver) || pgDriver.Code != sqlStateForeignKeyViolation):
		t.Fatalf("foreign key: the driver's error is lost: %#v", err)
	case db.pg == nil && (!errors.As(err, &driver) || driver.Code()&0xff != sqlite3.SQLITE_CONSTRAINT):
		t.Fatalf("foreign key: the driver's error is lost: %#v", err)
	}

	// A classified failure: the sentinel is chosen from the driver's
	// error before the operation is named around it.
	u := User{ID: "u1", Email: "a@example.com", PasswordHash: "x", CreatedAt: now, UpdatedAt: now}
	if err := db.Write(ctx, func(tx *Tx) error { return tx.InsertUser(ctx, u) }); err != nil {
		t.Fatal(err)
	}
	u.ID = "u2"
	err = db.Write(ctx, func(tx *Tx) error { return tx.InsertUser(ctx, u) })
	if !errors.Is(err, ErrDuplicate) || err.Error() != "storage.Tx.InsertUser: duplicate" {
		t.Fatalf("duplicate: %v", err)
	}

	// A read.
	if _, err := UserByID(ctx, db.Reader(), "nobody"); !errors.Is(err, ErrNotFound) || err.Error() != "storage.UserByID: not found" {
		t.Fatalf("not found: %v", err)
	}

	// The caller's own error comes back from Write as it is.
	mine := errors.New("mine")
	if err := db.Write(ctx, func(*Tx) error { return mine }); err != mine {
		t.Fatalf("the write's own error: %v", err)
	}

	// The writer's failures name Write.
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	err = db.Write(cancelled, func(*Tx) error { return nil })
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "storage.DB.Write: ") {
		t.Fatalf("cancelled write: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	err = db.Write(ctx, func(*Tx) error { return nil })
	if !errors.Is(err, ErrClosed) || err.Error() != "storage.DB.Write: database closed" {
		t.Fatalf("write after Close: %v", err)
	}
}
