package storage

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
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
//
// Ids are UUIDs as Herald makes them, held as two integers each (20 bytes
// a contact with its number); a project with any other id holds its ids
// as texts (44 bytes a contact).
type directory struct {
	uuids [][2]uint64 // the ids in id order, when every id is a UUID
	ids   []byte      // else the ids end to end
	ends  []uint32    // id i is ids[ends[i-1]:ends[i]]
	nums  []uint32    // id i's rowid

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

func (d *directory) packed() bool { return d.ids == nil }

// text is id i as SQLite holds it.
func (d *directory) text(i int) string {
	if d.packed() {
		return formatUUID(d.uuids[i])
	}
	return string(d.key(i))
}

func (d *directory) size() int64 {
	return int64(len(d.uuids))*16 + int64(len(d.ids)) + int64(len(d.ends))*4 + int64(len(d.nums))*4 + 64
}

// append adds an id, in order, turning the directory into texts at the
// first id that is not a UUID.
func (d *directory) append(id string, num uint32) error {
	n := len(d.nums)
	if n > 0 && d.text(n-1) >= id {
		return errors.New("storage: contact ids out of order")
	}
	if u, ok := parseUUID(id); ok && d.packed() {
		d.uuids = append(d.uuids, u)
	} else {
		if d.packed() {
			d.ids = []byte{}
			for _, u := range d.uuids {
				d.ids = append(d.ids, formatUUID(u)...)
				d.ends = append(d.ends, uint32(len(d.ids)))
			}
			d.uuids = nil
		}
		d.ids = append(d.ids, id...)
		d.ends = append(d.ends, uint32(len(d.ids)))
	}
	d.nums = append(d.nums, num)
	return nil
}

// parseUUID reads a UUID in its canonical lower-case form, whose text
// order is the order of the two integers.
func parseUUID(s string) ([2]uint64, bool) {
	var u [2]uint64
	if len(s) != 36 {
		return u, false
	}
	k := 0
	for i := 0; i < 36; i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return u, false
			}
			continue
		}
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		default:
			return u, false
		}
		u[k/16] = u[k/16]<<4 | uint64(v)
		k++
	}
	return u, true
}

func formatUUID(u [2]uint64) string {
	const hex = "0123456789abcdef"
	var b [36]byte
	k := 0
	for i := range b {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			b[i] = '-'
			continue
		}
		b[i] = hex[u[k/16]>>(60-4*(k%16))&15]
		k++
	}
	return string(b[:])
}

func lessUUID(a, b [2]uint64) bool { return a[0] < b[0] || a[0] == b[0] && a[1] < b[1] }

// bounds are ids splitting the project's ids into batches of dirBatch.
func (d *directory) bounds() []string {
	var out []string
	for i := dirBatch; i < len(d.nums); i += dirBatch {
		out = append(out, d.text(i))
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
	var i int
	if d.packed() {
		u, ok := parseUUID(id)
		if !ok {
			return d.found(id)
		}
		i = w.search(func(j int) bool { return !lessUUID(d.uuids[j], u) })
		if i < len(d.nums) && d.uuids[i] == u {
			w.at = i + 1
			return d.nums[i], true
		}
		return d.found(id)
	}
	i = w.search(func(j int) bool { return string(d.key(j)) >= id })
	if i < len(d.nums) && string(d.key(i)) == id {
		w.at = i + 1
		return d.nums[i], true
	}
	return d.found(id)
}

// search finds the first position at which atOrAfter holds, galloping
// forward from the last one found: ids mostly come in order.
func (w *dirWalk) search(atOrAfter func(int) bool) int {
	n := len(w.d.nums)
	lo, hi := 0, n
	if w.at < n && !atOrAfter(w.at) {
		lo = w.at + 1
		for step := 1; ; step *= 2 {
			hi = lo + step - 1
			if hi >= n || atOrAfter(hi) {
				break
			}
			lo = hi + 1
		}
		hi = min(hi+1, n)
	} else if w.at < n && (w.at == 0 || !atOrAfter(w.at-1)) {
		return w.at
	}
	return lo + sort.Search(hi-lo, func(j int) bool { return atOrAfter(lo + j) })
}

// found looks among the contacts added since the build.
func (d *directory) found(id string) (uint32, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	num, ok := d.extra[id]
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
		var rows int
		err := tx.QueryRowContext(ctx, `SELECT count(*), group_concat(id || ',' || num, ',')
			FROM (SELECT id, rowid AS num FROM contacts INDEXED BY contacts_by_project_id
			      WHERE project_id = ? AND id > ? ORDER BY id LIMIT ?)`, projectID, after, dirBatch).Scan(&rows, &packed)
		if err != nil || rows == 0 {
			return d, err
		}
		n := 0
		err = parsePacked(packed.String, rows, true, func(id, x string) error {
			num, err := contactNumber(x)
			if err != nil {
				return err
			}
			after, n = id, n+1
			return d.append(id, num)
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
// group_concat(..., ','): rows of an id and, when withExtra, a number,
// all separated by commas. An id may hold a comma; the number of rows
// SQLite counted tells, since the fields would then outnumber them, and
// such a read is left to SQL.
func parsePacked(s string, rows int, withExtra bool, row func(id, extra string) error) error {
	if rows == 0 {
		return nil
	}
	per := 1
	if withExtra {
		per = 2
	}
	if strings.Count(s, ",")+1 != rows*per {
		return errNotCovered
	}
	for len(s) > 0 || rows > 0 {
		id, rest, _ := strings.Cut(s, ",")
		extra := ""
		if withExtra {
			extra, rest, _ = strings.Cut(rest, ",")
		}
		if err := row(id, extra); err != nil {
			return err
		}
		s, rows = rest, rows-1
		if rows == 0 {
			break
		}
	}
	return nil
}
