package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("storage: database closed")

// Tx is a write transaction on the writer connection. It is only valid
// inside the function given to DB.Write.
type Tx struct {
	conn     *sql.Conn
	stmts    map[string]*sql.Stmt
	onCommit []func()
	ctx      context.Context // the writer's, never cancelled: see below
	bodies   *bodyDrops      // final emails' bodies to delete (email_bodies_drop.go)
	pg       *pgEngine       // nil on SQLite: statement texts as written
}

// OnCommit registers f to run after the transaction commits, and never if
// this write is rolled back. Use it for side effects that must not precede
// durability: waking a worker, invalidating a cache.
func (tx *Tx) OnCommit(f func()) { tx.onCommit = append(tx.onCommit, f) }

// Statements inside a write ignore the caller's context and run under the
// writer's, which is never cancelled. The driver answers a cancellation by
// interrupting SQLite, and an interrupted INSERT, UPDATE or DELETE rolls
// back the whole transaction: every other write of the group would fail
// with it. A write that has started therefore runs to its end (it is short
// by contract, and Write waits for it anyway); a write whose context ended
// before it started does not run at all. The driver reads nothing else from
// a context, so the caller's is not needed, and not wrapping it saves an
// allocation per statement on the single writer.

func (tx *Tx) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if s, ok := tx.stmts[query]; ok {
		return s, nil
	}
	text := query
	if tx.pg != nil {
		text = tx.pg.text(query)
	}
	s, err := tx.conn.PrepareContext(ctx, text)
	if err != nil {
		return nil, err
	}
	tx.stmts[query] = s
	return s, nil
}

// Exec runs a statement, prepared once per connection.
func (tx *Tx) Exec(_ context.Context, query string, args ...any) (sql.Result, error) {
	ctx := tx.ctx
	s, err := tx.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

// Query runs a query, prepared once per connection.
func (tx *Tx) Query(_ context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx := tx.ctx
	s, err := tx.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return s.QueryContext(ctx, args...)
}

// QueryRow runs a query expected to return at most one row.
func (tx *Tx) QueryRow(_ context.Context, query string, args ...any) *sql.Row {
	ctx := tx.ctx
	s, err := tx.stmt(ctx, query)
	if err != nil {
		if tx.pg != nil {
			query = tx.pg.text(query)
		}
		return tx.conn.QueryRowContext(ctx, query, args...)
	}
	return s.QueryRowContext(ctx, args...)
}

type writeRequest struct {
	ctx  context.Context
	fn   func(*Tx) error
	done chan error
}

// Write runs fn in a write transaction and returns once it has committed.
//
// Writes are group-committed: while one transaction runs, the writes that
// arrive queue up, and the next transaction runs all of them. Nobody is
// answered before the COMMIT that holds their write, so durability is the
// same as one transaction per write, at a fraction of the cost per write
// under load. With no concurrent writes a transaction holds exactly one fn
// and starts at once: there is no waiting window.
//
// If any fn of a group fails, the group is rolled back and each of its fns
// runs again in a transaction of its own, so a failure undoes only its own
// changes. An fn may therefore run more than once: it must have no effects
// outside the transaction (use OnCommit for those) and set its results on
// every run.
//
// fn must be quick and must not wait on the network: it holds the
// database's only write lock.
//
// fn's own error comes back as it is (the storage calls in it name
// themselves); the writer's errors (closed, the context ended before the
// write ran, BEGIN or COMMIT failed) are named "storage.DB.Write".
func (db *DB) Write(ctx context.Context, fn func(*Tx) error) error {
	req := &writeRequest{ctx: ctx, fn: fn, done: make(chan error, 1)}
	select {
	case <-db.stop:
		return writeErr(ErrClosed)
	default:
	}
	select {
	case db.writes <- req:
	case <-db.stop:
		return writeErr(ErrClosed)
	case <-ctx.Done():
		return writeErr(ctx.Err())
	}
	// Once queued, the write is waited for even if ctx ends, so a caller
	// never reports failure for a write that then commits. A write queued
	// while Close ran may have missed the writer's last drain: once the
	// writer has finished, an unanswered write never ran.
	select {
	case err := <-req.done:
		return err
	case <-db.finished:
		select {
		case err := <-req.done:
			return err
		default:
			return writeErr(ErrClosed)
		}
	}
}

// writeErr names the writer's own failures; see Write.
func writeErr(err error) error { return &opError{op: "DB.Write", err: err} }

func (db *DB) startWriter(ctx context.Context, opts Options) {
	maxBatch := opts.MaxBatch
	if maxBatch <= 0 {
		maxBatch = 256
	}
	db.writes = make(chan *writeRequest, maxBatch)
	db.finished = make(chan struct{})
	go db.writeLoop(context.WithoutCancel(ctx), maxBatch)
}

func (db *DB) writeLoop(ctx context.Context, maxBatch int) {
	defer close(db.finished)
	conn, err := db.writer.Conn(ctx)
	if err != nil {
		db.failAll(writeErr(fmt.Errorf("writer connection: %w", err)))
		return
	}
	defer conn.Close()
	tx := &Tx{conn: conn, stmts: map[string]*sql.Stmt{}, ctx: ctx, bodies: &bodyDrops{}, pg: db.pg}
	defer func() {
		for _, s := range tx.stmts {
			s.Close()
		}
	}()
	batch := make([]*writeRequest, 0, maxBatch)
	for {
		last := len(batch)
		select {
		case req := <-db.writes:
			batch = append(batch[:0], req)
		case <-db.stop:
			db.drain(ctx, tx, batch[:0], maxBatch)
			return
		}
		yieldWhenBusy(last)
		batch = gather(db.writes, batch, maxBatch)
		db.commitBatch(ctx, tx, batch)
	}
}

// gather adds the writes already waiting, without blocking.
func gather(ch chan *writeRequest, batch []*writeRequest, maxBatch int) []*writeRequest {
	for len(batch) < maxBatch {
		select {
		case req := <-ch:
			batch = append(batch, req)
		default:
			return batch
		}
	}
	return batch
}

// drain commits the writes queued before Close, then refuses the rest.
func (db *DB) drain(ctx context.Context, tx *Tx, batch []*writeRequest, maxBatch int) {
	for {
		batch = gather(db.writes, batch[:0], maxBatch)
		if len(batch) == 0 {
			db.dropAllBodies(ctx, tx)
			return
		}
		db.commitBatch(ctx, tx, batch)
	}
}

func (db *DB) failAll(err error) {
	for {
		select {
		case req := <-db.writes:
			req.done <- err
		case <-db.stop:
			return
		}
	}
}

func (db *DB) commitBatch(ctx context.Context, tx *Tx, batch []*writeRequest) {
	if !db.commitGroup(ctx, tx, batch) {
		// Some write failed: run each alone, so that only it fails.
		for _, req := range batch {
			db.commitGroup(ctx, tx, []*writeRequest{req})
		}
	}
}

// commitGroup runs writes in one transaction. When every write succeeds it
// commits and answers them all. When one fails, a group of several is
// rolled back unanswered and commitGroup reports false; a single write is
// answered with its error.
func (db *DB) commitGroup(ctx context.Context, tx *Tx, batch []*writeRequest) bool {
	if _, err := tx.Exec(ctx, db.begin); err != nil {
		for _, req := range batch {
			req.done <- writeErr(fmt.Errorf("begin: %w", err))
		}
		return true
	}
	dropped := tx.dropBodies(ctx, false)
	var hooks []func()
	for _, req := range batch {
		tx.onCommit = tx.onCommit[:0]
		if err := runOne(tx, req); err != nil {
			_, _ = tx.conn.ExecContext(ctx, "ROLLBACK")
			if len(batch) > 1 {
				return false
			}
			req.done <- err
			return true
		}
		hooks = append(hooks, tx.onCommit...)
	}
	err := db.commit(ctx, tx)
	if err == nil {
		tx.bodies.forgetDropped(dropped)
		if db.onBatch != nil {
			db.onBatch(len(batch))
		}
		for _, h := range hooks {
			h()
		}
	}
	for _, req := range batch {
		req.done <- err
	}
	return true
}

func (db *DB) commit(ctx context.Context, tx *Tx) error {
	if _, err := tx.Exec(ctx, "COMMIT"); err != nil {
		_, _ = tx.conn.ExecContext(ctx, "ROLLBACK")
		return writeErr(fmt.Errorf("commit: %w", err))
	}
	db.markDirty()
	return nil
}

// dropAllBodies deletes every gathered body before the writer stops, a
// transaction per batch.
func (db *DB) dropAllBodies(ctx context.Context, tx *Tx) {
	for len(tx.bodies.ids) > 0 {
		if _, err := tx.Exec(ctx, db.begin); err != nil {
			return
		}
		n := tx.dropBodies(ctx, true)
		if n == 0 {
			_, _ = tx.conn.ExecContext(ctx, "ROLLBACK")
			return
		}
		if db.commit(ctx, tx) != nil {
			return
		}
		tx.bodies.forgetDropped(n)
	}
}

// runOne runs one write, turning a panic into its error.
func runOne(tx *Tx, req *writeRequest) (err error) {
	if err := req.ctx.Err(); err != nil {
		return writeErr(err)
	}
	defer func() {
		if p := recover(); p != nil {
			err = writeErr(fmt.Errorf("panic in write: %v\n%s", p, debug.Stack()))
		}
	}()
	if err := req.fn(tx); err != nil {
		return err
	}
	if err := markIdempotentEffect(req.ctx, tx); err != nil {
		return writeErr(fmt.Errorf("idempotency key's effect: %w", err))
	}
	return nil
}
