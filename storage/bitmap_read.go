package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// A bitmapRead is one count or page computed from bitmaps, in one read
// transaction on the scan pool: the versions of the sets it uses, the sets
// it builds again, and the contacts it lists are all read in the same
// snapshot, so its answer is the SQL plan's answer in that snapshot.
type bitmapRead struct {
	ctx     context.Context
	tx      *sql.Tx
	cache   *bitmapCache
	project string
	dir     *directory
	bounds  []string
}

// beginBitmapRead opens the read transaction; the snapshot starts with
// its first statement, the contacts' count.
func (db *DB) beginBitmapRead(ctx context.Context, projectID string) (*bitmapRead, int, error) {
	tx, err := db.scan.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, 0, err
	}
	r := &bitmapRead{ctx: ctx, tx: tx, cache: db.bitmaps, project: projectID}
	contacts, _, _, err := r.stamp(countContacts, "", "")
	if err != nil {
		tx.Rollback()
		return nil, 0, err
	}
	return r, contacts, nil
}

func (r *bitmapRead) close() { r.tx.Rollback() }

// stamp reads a stored count and its version; ok is false when no row
// exists, that is when the set is empty.
func (r *bitmapRead) stamp(kind int, key string, value any) (n int, v int64, ok bool, err error) {
	err = r.tx.QueryRowContext(r.ctx, `SELECT n, v FROM audience_counts
		WHERE project_id = ? AND kind = ? AND key = ? AND value = ?`, r.project, kind, key, value).Scan(&n, &v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, false, nil
	}
	return n, v, err == nil, err
}

// directory returns the project's directory, built again when a contact
// was deleted since it was built or when many were created.
func (r *bitmapRead) directory() (*directory, error) {
	if r.dir != nil {
		return r.dir, nil
	}
	_, v, ok, err := r.stamp(countContacts, "", "")
	if err != nil {
		return nil, err
	}
	if !ok { // no contacts: nothing to find
		r.dir = &directory{}
		return r.dir, nil
	}
	k := bitmapKey{project: r.project, kind: entryDirectory}
	if d, ok := r.cache.get(k, v); ok && !d.(*directory).stale() {
		r.dir = d.(*directory)
	} else {
		if r.dir, err = buildDirectory(r.ctx, r.tx, r.project); err != nil {
			return nil, err
		}
		r.cache.put(k, v, r.dir, r.dir.size())
	}
	r.bounds = r.dir.bounds()
	return r.dir, nil
}

// An idQuery selects contact ids in a column named cid, read in batches
// of ids: col is the id column to bound, tail what follows the WHERE.
type idQuery struct {
	sql  string
	args []any
	col  string
	tail string
	targ []any
}

// cachedSet returns the set a stored count counts, from the cache when
// its version is the one in this snapshot, else read and cached.
func (r *bitmapRead) cachedSet(entry, kind int, key string, value any, q idQuery) (bitset, error) {
	_, v, ok, err := r.stamp(kind, key, value)
	if err != nil || !ok {
		return bitset{}, err
	}
	k := bitmapKey{project: r.project, kind: entry, key: key, value: valueKey(value)}
	if b, ok := r.cache.get(k, v); ok {
		return b.(bitset), nil
	}
	b, err := r.readSet(q)
	if err == nil {
		r.cache.put(k, v, b, b.bytes()+int64(len(key))+64)
	}
	return b, err
}

func valueKey(v any) string { return fmt.Sprintf("%T %v", v, v) }

// readSet reads the set of ids q selects, as bit numbers.
func (r *bitmapRead) readSet(q idQuery) (bitset, error) {
	var nums []uint32
	err := r.readPacked(q, "cid", false, func(num uint32, _ string) error {
		nums = append(nums, num)
		return nil
	})
	return bitsetOf(nums), err
}

// readPacked reads q's rows batch by batch, each batch one text that
// group_concat packs (row is SQL of each row's packed form), and calls f
// with each row's number and extra field, the rows of contacts missing
// from the directory last.
func (r *bitmapRead) readPacked(q idQuery, row string, withExtra bool, f func(uint32, string) error) error {
	d, err := r.directory()
	if err != nil {
		return err
	}
	w := &dirWalk{d: d}
	type missing struct{ id, extra string }
	var misses []missing
	for i := 0; i <= len(r.bounds); i++ {
		query, args := q.sql, append([]any(nil), q.args...)
		if i > 0 {
			query += " AND " + q.col + " >= ?"
			args = append(args, r.bounds[i-1])
		}
		if i < len(r.bounds) {
			query += " AND " + q.col + " < ?"
			args = append(args, r.bounds[i])
		}
		var packed sql.NullString
		var rows int
		err := r.tx.QueryRowContext(r.ctx, `SELECT count(*), group_concat(`+row+`, ',') FROM (`+query+q.tail+`)`,
			append(args, q.targ...)...).Scan(&rows, &packed)
		if err != nil {
			return err
		}
		err = parsePacked(packed.String, rows, withExtra, func(id, extra string) error {
			if num, ok := w.find(id); ok {
				return f(num, extra)
			}
			misses = append(misses, missing{strings.Clone(id), strings.Clone(extra)})
			return nil
		})
		if err != nil {
			return err
		}
	}
	if len(misses) == 0 {
		return nil
	}
	ids := make([]string, len(misses))
	for i, m := range misses {
		ids[i] = m.id
	}
	found, err := r.lookup(ids)
	if err != nil {
		return err
	}
	d.add(found)
	for _, m := range misses {
		num, ok := found[m.id]
		if !ok {
			return errNotCovered // an id without a contact: leave it to SQL
		}
		if err := f(num, m.extra); err != nil {
			return err
		}
	}
	return nil
}

// lookup finds the rowids of contacts created since the directory was
// built.
func (r *bitmapRead) lookup(ids []string) (map[string]uint32, error) {
	found := make(map[string]uint32, len(ids))
	for start := 0; start < len(ids); start += 10_000 {
		rows, err := r.tx.QueryContext(r.ctx, `SELECT id, rowid FROM contacts
			WHERE project_id = ? AND id IN (SELECT value FROM json_each(?))`,
			r.project, jsonArray(ids[start:min(start+10_000, len(ids))]))
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id string
			var rowid int64
			if err := rows.Scan(&id, &rowid); err != nil {
				rows.Close()
				return nil, err
			}
			if rowid < 0 || rowid > maxContactNumber {
				rows.Close()
				return nil, errNotCovered
			}
			found[id] = uint32(rowid)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return found, nil
}
