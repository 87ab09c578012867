package storage

import "time"

// An Audience is a set of a project's contacts chosen by a condition: a
// segment's members, a campaign's recipients, a workflow's CONDITION step.
// app builds it from a checked condition tree, with every relative time
// ("within 7 days") already resolved to an instant, so that one audience
// means the same contacts however many times it is queried.
//
// The SQL is built from the tree's shape alone: identifiers come from the
// constants of this file, and every value the client gave (data keys,
// event names, texts, numbers, times, segment ids) is a bound parameter.
type Audience struct {
	ProjectID      string
	Match          *Match // nil: every contact of the project
	SubscribedOnly bool   // keep only subscribed contacts (marketing sends)
}

// Match is a condition tree: the union (Any) or intersection of its groups.
type Match struct {
	Any    bool
	Groups []MatchGroup
}

// MatchGroup is the intersection of its tests and its nested tree.
type MatchGroup struct {
	Tests  []Test
	Nested *Match
}

// Source is where a test reads.
type Source int

// The sources of a test.
const (
	SourceContact Source = iota + 1 // a column of contacts
	SourceData                      // a data.<key> value
	SourceEvent                     // events of a name
	SourceMembers                   // the member rows of a static segment
	SourceMatch                     // a dynamic segment's own tree
	SourceNone                      // nobody (a segment that no longer exists)
)

// Column is a contact column a test may read.
type Column int

// The contact columns of conditions.
const (
	ColumnEmail Column = iota + 1
	ColumnSubscribed
	ColumnCreatedAt
	ColumnUpdatedAt
)

// Op is a test's comparison.
type Op int

// The comparisons. Exists means: the data key is present, the event
// happened, the contact is a member. Since keeps events at or after Value;
// LastBefore keeps contacts whose latest event of the name is before it.
const (
	OpExists Op = iota + 1
	OpEquals
	OpContains
	OpGreater
	OpGreaterEq
	OpLess
	OpLessEq
	OpSince
	OpLastBefore
)

// Test is one filter of a tree. Value's type selects the comparison: a
// string compares text (case-insensitively for data), int64 or float64
// compare numbers, bool the boolean, time.Time dates.
type Test struct {
	Not     bool // select the contacts the test would not select
	Source  Source
	Column  Column // SourceContact
	Key     string // SourceData: the data key; SourceEvent: the event name
	Op      Op
	Value   any
	Segment string // SourceMembers: the segment whose rows to read
	Match   *Match // SourceMatch
}

// dateMillis is a time as stored: Unix milliseconds.
func dateMillis(v any) (int64, bool) {
	t, ok := v.(time.Time)
	return Millis(t), ok
}
