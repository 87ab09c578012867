package storage

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Counts and member pages from bitmaps (the scan pool's users: segment
// counts, the audience count, a segment's members). Campaign fan-out and
// workflow steps keep the SQL plan: their memory is measured, and they
// read a batch or one contact, not a whole set.

// bitmapCount counts the audience from bitmaps; ok is false when the
// bitmaps do not cover its tree.
func (db *DB) bitmapCount(ctx context.Context, a Audience) (n int, ok bool, err error) {
	if !bitmapCovers(a) || singleReadEachTime(a) {
		return 0, false, nil
	}
	r, contacts, err := db.beginBitmapRead(ctx, a.ProjectID)
	if err != nil {
		return 0, false, err
	}
	defer r.close()
	s, err := r.audience(a)
	if err != nil {
		return 0, false, coveredErr(err)
	}
	return s.count(contacts), true, nil
}

// singleReadEachTime reports an audience of one test whose set the
// bitmaps read from SQL each time (events within a window, a static
// segment's rows): SQL counts those ids faster than it can hand them over.
func singleReadEachTime(a Audience) bool {
	if a.Match == nil || a.SubscribedOnly || isUnion(a.Match) {
		return false
	}
	pos, neg := flatten(a.Match, nil, nil)
	if len(pos)+len(neg) != 1 {
		return false
	}
	t := append(pos, neg...)[0].test
	return t != nil && (t.Source == SourceMembers || t.Source == SourceEvent && t.Op != OpExists)
}

// coveredErr is nil for a read the bitmaps leave to SQL.
func coveredErr(err error) error {
	if errors.Is(err, errNotCovered) {
		return nil
	}
	return err
}

// bitmapPage is AudiencePage from bitmaps: the audience's members, newest
// first (created_at, then id, descending), skipping offset.
func (db *DB) bitmapPage(ctx context.Context, a Audience, offset, limit int) ([]Contact, bool, error) {
	if !bitmapCovers(a) {
		return nil, false, nil
	}
	r, contacts, err := db.beginBitmapRead(ctx, a.ProjectID)
	if err != nil {
		return nil, false, err
	}
	defer r.close()
	page, err := r.page(a, contacts, offset, limit)
	if err != nil {
		return nil, false, coveredErr(err)
	}
	return page, true, nil
}

func (r *bitmapRead) page(a Audience, contacts, offset, limit int) ([]Contact, error) {
	s, err := r.audience(a)
	if err != nil {
		return nil, err
	}
	members := s.count(contacts)
	if offset >= members || limit <= 0 {
		return []Contact{}, nil
	}
	need := min(offset+limit, members)
	var page []uint32
	// Walking the newest contacts costs about need*contacts/members index
	// entries; reading every member's date costs a lookup each. Rare
	// audiences take the second.
	if !s.comp && members <= 200_000 && members*4 < need*(contacts/members) {
		page, err = r.pageOfMembers(s.b, offset, need)
	} else {
		page, err = r.pageOfNewest(s, offset, need)
	}
	if err != nil {
		return nil, err
	}
	return r.contactsByNumber(page)
}

// pageOfNewest walks the project's contacts newest first, keeping
// members, until it has need of them.
func (r *bitmapRead) pageOfNewest(s cset, offset, need int) ([]uint32, error) {
	var found []uint32
	seen, batch := 0, 1024
	for len(found) < need {
		var packed string
		err := r.tx.QueryRowContext(r.ctx, `SELECT COALESCE(group_concat(num, ','), '') FROM
			(SELECT rowid AS num FROM contacts INDEXED BY contacts_by_created WHERE project_id = ?
			 ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?)`, r.project, batch, seen).Scan(&packed)
		if err != nil {
			return nil, err
		}
		if packed == "" {
			break
		}
		for f := range strings.SplitSeq(packed, ",") {
			seen++
			num, err := contactNumber(f)
			if err != nil {
				return nil, err
			}
			if s.has(num) && len(found) < need {
				found = append(found, num)
			}
		}
		batch = min(batch*4, 1<<16)
	}
	return found[min(offset, len(found)):], nil
}

// pageOfMembers reads every member's creation date and id and sorts them.
func (r *bitmapRead) pageOfMembers(b bitset, offset, need int) ([]uint32, error) {
	type member struct {
		num     uint32
		created int64
		id      string
	}
	var all []member
	var chunk []string
	flush := func() error {
		rows, err := r.tx.QueryContext(r.ctx, `SELECT rowid, created_at, id FROM contacts
			WHERE rowid IN (SELECT value FROM json_each(?))`, "["+strings.Join(chunk, ",")+"]")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m member
			var num int64
			if err := rows.Scan(&num, &m.created, &m.id); err != nil {
				return err
			}
			m.num = uint32(num)
			all = append(all, m)
		}
		chunk = chunk[:0]
		return rows.Err()
	}
	var err error
	b.each(func(n uint32) bool {
		chunk = append(chunk, strconv.FormatUint(uint64(n), 10))
		if len(chunk) == 10_000 {
			err = flush()
		}
		return err == nil
	})
	if err == nil && len(chunk) > 0 {
		err = flush()
	}
	if err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(x, y member) int {
		if x.created != y.created {
			return -cmpInt64(x.created, y.created)
		}
		return -strings.Compare(x.id, y.id)
	})
	var out []uint32
	for _, m := range all[min(offset, len(all)):min(need, len(all))] {
		out = append(out, m.num)
	}
	return out, nil
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// contactsByNumber reads the page's contacts, in the page's order (newest
// first, as the page was chosen).
func (r *bitmapRead) contactsByNumber(nums []uint32) ([]Contact, error) {
	out := []Contact{}
	if len(nums) == 0 {
		return out, nil
	}
	list := make([]string, len(nums))
	for i, n := range nums {
		list[i] = strconv.FormatUint(uint64(n), 10)
	}
	rows, err := r.tx.QueryContext(r.ctx, `SELECT `+contactColumns+` FROM contacts
		WHERE rowid IN (SELECT value FROM json_each(?))`, "["+strings.Join(list, ",")+"]")
	out, err = collect(rows, err, scanContact)
	slices.SortFunc(out, func(x, y Contact) int {
		if c := y.CreatedAt.Compare(x.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(y.ID, x.ID)
	})
	return out, err
}
