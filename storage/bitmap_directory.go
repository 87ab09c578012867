package storage

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"sort"
	"strconv"
	"sync"
)

// The directory of a project: every contact id with its rowid, the bit
// number of the contact in the bitmaps. SQLite returns the ids of a set
// (contact_values and events hold ids, not rowids); the directory turns
// them into numbers without a lookup per id in SQLite.
//
// An entry is a fact that holds as long as the contact lives: a row's
// rowid never changes (Herald never runs VACUUM on the live database, and
// no write replaces a contact's row). A contact created after the build is
// missing and is looked up in SQLite, in the reader's snapshot, then added.
// A deleted contact's entry is wrong only if its id is given to a new
// contact (a send that previewed a contact deleted meanwhile does that),
// so the directory is stamped with kind 0's v, which moves when a contact
// of the project is deleted (migration 00019).
type directory struct {
	ids  []byte   // the ids in id order, end to end
	ends []uint32 // id i is ids[ends[i-1]:ends[i]]
	nums []uint32 // id i's rowid

	mu    sync.Mutex
	extra map[string]uint32 // found after the build: contacts created since
}

// dirBatch is how many ids a read of a set takes at a time, and the step
// of the directory's bounds.
const dirBatch = 1 << 16

// maxContactNumber keeps bitsets to 64 MB of words at most: a database
// whose rowids went beyond (four billion contacts created) counts in SQL.
const maxContactNumber = math.MaxUint32 - 1

var errNotCovered = errors.New("storage: audience not covered by bitmaps")

func (d *directory) key(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = d.ends[i-1]
	}
	return d.ids[start:d.ends[i]]
}

func (d *directory) size() int64 {
	return int64(len(d.ids)) + int64(len(d.ends))*4 + int64(len(d.nums))*4 + 64
}

// bounds are ids splitting the project's ids into batches of dirBatch.
func (d *directory) bounds() []string {
	var out []string
	for i := dirBatch; i < len(d.nums); i += dirBatch {
		out = append(out, string(d.key(i)))
	}
	return out
}

// A dirWalk finds ids in the directory, fastest when they come in order.
type dirWalk struct {
	d  *directory
	at int
}

func (w *dirWalk) find(id string) (uint32, bool) {
	d := w.d
	n := len(d.nums)
	lo, hi := 0, n
	if w.at < n && string(d.key(w.at)) <= id {
		// Gallop forward from the last position: ids mostly come in order.
		lo = w.at
		for step := 1; ; step *= 2 {
			hi = lo + step
			if hi >= n || string(d.key(hi)) > id {
				break
			}
			lo = hi
		}
		hi = min(hi, n)
	}
	i := lo + sort.Search(hi-lo, func(j int) bool { return string(d.key(lo+j)) >= id })
	if i < n && string(d.key(i)) == id {
		w.at = i + 1
		return d.nums[i], true
	}
	d.mu.Lock()
	num, ok := d.extra[id]
	d.mu.Unlock()
	return num, ok
}

// add records contacts found after the build.
func (d *directory) add(found map[string]uint32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.extra == nil {
		d.extra = map[string]uint32{}
	}
	for id, n := range found {
		d.extra[id] = n
	}
}

// stale reports whether so many contacts were added that the directory
// should be built again.
func (d *directory) stale() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.extra) > 4096+len(d.nums)/8
}

// buildDirectory reads every contact id of the project with its rowid, in
// id order, in batches that SQLite packs into one text each.
func buildDirectory(ctx context.Context, tx *sql.Tx, projectID string) (*directory, error) {
	d := &directory{}
	after := ""
	for {
		var packed sql.NullString
		err := tx.QueryRowContext(ctx, `SELECT group_concat(octet_length(id) || ':' || id || num || ';', '')
			FROM (SELECT id, rowid AS num FROM contacts INDEXED BY contacts_by_project_id
			      WHERE project_id = ? AND id > ? ORDER BY id LIMIT ?)`, projectID, after, dirBatch).Scan(&packed)
		if err != nil || !packed.Valid {
			return d, err
		}
		n := 0
		err = parsePacked(packed.String, true, func(id, x string) error {
			num, err := contactNumber(x)
			if err != nil {
				return err
			}
			if k := len(d.nums); k > 0 && string(d.key(k-1)) >= id {
				return errors.New("storage: contact ids out of order")
			}
			d.ids = append(d.ids, id...)
			d.ends = append(d.ends, uint32(len(d.ids)))
			d.nums = append(d.nums, num)
			after, n = id, n+1
			return nil
		})
		if err != nil || n < dirBatch {
			return d, err
		}
	}
}

// contactNumber reads a rowid as a bit number.
func contactNumber(s string) (uint32, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, err
	}
	if n > maxContactNumber {
		return 0, errNotCovered
	}
	return uint32(n), nil
}

// parsePacked reads the texts that the bitmap reads make with
// group_concat: each row is "<bytes of id>:<id>" and, when withExtra,
// an extra field up to ";". Lengths make it exact whatever an id holds.
func parsePacked(s string, withExtra bool, row func(id, extra string) error) error {
	for len(s) > 0 {
		colon := 0
		for colon < len(s) && s[colon] != ':' {
			colon++
		}
		n, err := strconv.Atoi(s[:colon])
		if err != nil || colon+1+n > len(s) {
			return errors.New("storage: malformed packed ids")
		}
		id := s[colon+1 : colon+1+n]
		s = s[colon+1+n:]
		extra := ""
		if withExtra {
			end := 0
			for end < len(s) && s[end] != ';' {
				end++
			}
			if end == len(s) {
				return errors.New("storage: malformed packed ids")
			}
			extra, s = s[:end], s[end+1:]
		}
		if err := row(id, extra); err != nil {
			return err
		}
	}
	return nil
}
