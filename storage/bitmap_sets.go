package storage

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The sets of a condition's tests as bitmaps, and the tree combined in Go:
// intersection, union and complement (bitset.go). What the bitmaps cover
// is what coversTest accepts; any other tree counts in SQL as before.

// bitmapCovers reports whether every test of the audience has a bitmap.
func bitmapCovers(a Audience) bool { return a.Match == nil || coversMatch(a.Match) }

func coversMatch(m *Match) bool {
	for gi := range m.Groups {
		g := &m.Groups[gi]
		for ti := range g.Tests {
			if !coversTest(&g.Tests[ti]) {
				return false
			}
		}
		if g.Nested != nil && !coversMatch(g.Nested) {
			return false
		}
	}
	return true
}

func coversTest(t *Test) bool {
	switch t.Source {
	case SourceContact:
		_, isBool := t.Value.(bool)
		return t.Column == ColumnSubscribed && t.Op == OpEquals && isBool
	case SourceData:
		switch t.Op {
		case OpEquals, OpExists:
			return true
		case OpGreater, OpGreaterEq, OpLess, OpLessEq:
			switch t.Value.(type) {
			case int64, float64, time.Time:
				return true
			}
		}
		return false
	case SourceEvent:
		return t.Op == OpExists || t.Op == OpSince || t.Op == OpLastBefore
	case SourceMembers, SourceNone:
		return true
	case SourceMatch:
		return coversMatch(t.Match)
	}
	return false
}

// audience is the audience's set.
func (r *bitmapRead) audience(a Audience) (cset, error) {
	s, err := r.match(a.Match)
	if err != nil || !a.SubscribedOnly {
		return s, err
	}
	unsub, err := r.unsubscribed()
	return s.and(cset{b: unsub, comp: true}), err
}

func (r *bitmapRead) match(m *Match) (cset, error) {
	if m == nil {
		return every(), nil
	}
	acc := every()
	if isUnion(m) {
		acc = none()
	}
	for gi := range m.Groups {
		g, err := r.group(&m.Groups[gi])
		if err != nil {
			return g, err
		}
		if isUnion(m) {
			acc = acc.or(g)
		} else {
			acc = acc.and(g)
		}
	}
	return acc, nil
}

func (r *bitmapRead) group(g *MatchGroup) (cset, error) {
	acc := every()
	for ti := range g.Tests {
		s, err := r.test(&g.Tests[ti])
		if err != nil {
			return s, err
		}
		acc = acc.and(s)
	}
	if g.Nested != nil {
		s, err := r.match(g.Nested)
		if err != nil {
			return s, err
		}
		acc = acc.and(s)
	}
	return acc, nil
}

func (r *bitmapRead) test(t *Test) (cset, error) {
	s, err := r.positive(t)
	if t.Not {
		s = s.not()
	}
	return s, err
}

// positive is the set a test selects, before its Not.
func (r *bitmapRead) positive(t *Test) (cset, error) {
	var b bitset
	var err error
	switch t.Source {
	case SourceContact: // subscribed (coversTest)
		b, err = r.unsubscribed()
		return cset{b: b, comp: t.Value == true}, err
	case SourceData:
		b, err = r.dataSet(t)
	case SourceEvent:
		b, err = r.eventSet(t)
	case SourceMembers:
		b, err = r.readSet(idQuery{sql: "SELECT contact_id AS cid FROM segment_members WHERE segment_id = ?",
			args: []any{t.Segment}, col: "contact_id"})
	case SourceMatch:
		return r.match(t.Match)
	}
	return cset{b: b}, err
}

func (r *bitmapRead) unsubscribed() (bitset, error) {
	return r.cachedSet(entryUnsub, countUnsubscribed, "", "", idQuery{
		sql:  "SELECT id AS cid FROM contacts INDEXED BY contacts_unsubscribed WHERE project_id = ? AND subscribed = 0",
		args: []any{r.project}, col: "id"})
}

func (r *bitmapRead) dataSet(t *Test) (bitset, error) {
	switch t.Op {
	case OpEquals:
		value := dataScalar(t.Value)
		return r.cachedSet(entryValue, countValue, t.Key, value, idQuery{
			sql:  "SELECT contact_id AS cid FROM contact_values WHERE project_id = ? AND key = ? AND value = ?",
			args: []any{r.project, t.Key, value}, col: "contact_id"})
	case OpExists:
		return r.cachedSet(entryKey, countKey, t.Key, "", idQuery{
			sql: "SELECT DISTINCT contact_id AS cid FROM contact_values INDEXED BY contact_values_by_contact " +
				"WHERE project_id = ? AND key = ?",
			args: []any{r.project, t.Key}, col: "contact_id"})
	}
	if ms, isDate := dateMillis(t.Value); isDate {
		dates, err := r.dates(t.Key)
		return dates.within(t.Op, ms), err
	}
	bound, err := exactFloat(t.Value)
	if err != nil {
		return bitset{}, err
	}
	numbers, err := r.numbers(t.Key)
	return numbers.within(t.Op, bound), err
}

func (r *bitmapRead) eventSet(t *Test) (bitset, error) {
	q := idQuery{sql: "SELECT DISTINCT contact_id AS cid FROM events INDEXED BY events_by_name_contact " +
		"WHERE project_id = ? AND name = ? AND contact_id IS NOT NULL",
		args: []any{r.project, t.Key}, col: "contact_id"}
	switch t.Op {
	case OpExists:
		return r.cachedSet(entryEvent, countEvent, t.Key, "", q)
	case OpSince:
		// Depends on the clock: read in this snapshot every time (the
		// events of a window, about 100,000 entries at a million contacts).
		ms, _ := dateMillis(t.Value)
		q.sql += " AND created_at >= ?"
		q.args = append(q.args, ms)
		return r.readSet(q)
	}
	ms, _ := dateMillis(t.Value) // OpLastBefore
	q.sql = "SELECT contact_id AS cid FROM events INDEXED BY events_by_name_contact " +
		"WHERE project_id = ? AND name = ? AND contact_id IS NOT NULL"
	q.tail, q.targ = " GROUP BY contact_id HAVING MAX(created_at) < ?", []any{ms}
	return r.readSet(q)
}

// exactFloat is a number bound as a float64, refused when the conversion
// would round (SQLite compares integers and reals exactly).
func exactFloat(v any) (float64, error) {
	switch n := v.(type) {
	case float64:
		return n, nil
	case int64:
		if n >= -1<<53 && n <= 1<<53 {
			return float64(n), nil
		}
	}
	return 0, errNotCovered
}

// An ordered is a data key's numbers or dates in increasing order, each
// with its contact: a range is a binary search and the bits after it.
type ordered[T cmp.Ordered] struct {
	vals []T
	nums []uint32
}

func (o ordered[T]) size() int64 { return int64(len(o.vals))*12 + 64 }

func (o ordered[T]) within(op Op, x T) bitset {
	at := func(strict bool) int { // the first value above x (strict) or from x on
		return sort.Search(len(o.vals), func(i int) bool {
			if strict {
				return o.vals[i] > x
			}
			return o.vals[i] >= x
		})
	}
	var nums []uint32
	switch op {
	case OpGreater:
		nums = o.nums[at(true):]
	case OpGreaterEq:
		nums = o.nums[at(false):]
	case OpLess:
		nums = o.nums[:at(false)]
	case OpLessEq:
		nums = o.nums[:at(true)]
	}
	return bitsetOf(nums)
}

func sortOrdered[T cmp.Ordered](o *ordered[T]) {
	type pair struct {
		v T
		n uint32
	}
	ps := make([]pair, len(o.vals))
	for i := range ps {
		ps[i] = pair{o.vals[i], o.nums[i]}
	}
	slices.SortFunc(ps, func(a, b pair) int { return cmp.Compare(a.v, b.v) })
	for i, p := range ps {
		o.vals[i], o.nums[i] = p.v, p.n
	}
}

// numbers are the key's numeric values (integers and reals; the range
// tests read "value < ”", which keeps numbers only). quote() writes a
// real so that it reads back exactly.
func (r *bitmapRead) numbers(key string) (ordered[float64], error) {
	return cachedOrdered(r, entryNumbers, key, idQuery{
		sql: "SELECT contact_id AS cid, quote(value) AS x FROM contact_values INDEXED BY contact_values_by_contact " +
			"WHERE project_id = ? AND key = ? AND value < ''",
		args: []any{r.project, key}, col: "contact_id"}, parseNumber)
}

// dates are the key's date texts as instants, read from the index of
// migration 00018 (an invalid date's instant is NULL, which no test
// selects: the read leaves it out).
func (r *bitmapRead) dates(key string) (ordered[int64], error) {
	return cachedOrdered(r, entryDates, key, idQuery{
		sql: "SELECT contact_id AS cid, " + dateInstant + " AS x FROM contact_values INDEXED BY contact_values_dates " +
			"WHERE project_id = ? AND key = ? AND " + dateGlob + " AND " + dateInstant + " IS NOT NULL",
		args: []any{r.project, key}, col: "contact_id"}, func(s string) (int64, error) {
		return strconv.ParseInt(s, 10, 64)
	})
}

func cachedOrdered[T cmp.Ordered](r *bitmapRead, entry int, key string, q idQuery, parse func(string) (T, error)) (ordered[T], error) {
	_, v, ok, err := r.stamp(countKey, key, "")
	if err != nil || !ok {
		return ordered[T]{}, err
	}
	k := bitmapKey{project: r.project, kind: entry, key: key}
	if o, ok := r.cache.get(k, v); ok {
		return o.(ordered[T]), nil
	}
	var o ordered[T]
	err = r.readPacked(q, "cid || ',' || x", true, func(num uint32, x string) error {
		val, err := parse(x)
		o.vals, o.nums = append(o.vals, val), append(o.nums, num)
		return err
	})
	if err != nil {
		return o, err
	}
	sortOrdered(&o)
	r.cache.put(k, v, o, o.size()+int64(len(key)))
	return o, nil
}

// parseNumber reads quote()'s text of a number: an integer must be exact
// as a float64, a real is one already (quote writes enough digits).
func parseNumber(s string) (float64, error) {
	if !strings.ContainsAny(s, ".eE") {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, errNotCovered
		}
		return exactFloat(n)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !(errors.Is(err, strconv.ErrRange) && math.IsInf(f, 0)) {
		return 0, errNotCovered // leave what does not read back exactly to SQL
	}
	return f, nil
}
