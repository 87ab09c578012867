package storage

import "strings"

// The condition compiler. A tree becomes set algebra over contact ids:
// each test is a SELECT of the ids it selects, read from an index in id
// order (contact_values, events_by_name_contact, segment_members,
// contacts_by_project_id); a group INTERSECTs its tests and EXCEPTs its
// negated ones; OR trees UNION their groups. SQLite merges such sorted
// streams without a lookup per contact, which is what keeps a count over a
// million contacts in the tens of milliseconds for one indexed test.

// setBuilder writes the SQL of a set of contact ids: a SELECT, or a
// compound of SELECTs, whose single column cid holds distinct ids.
type setBuilder struct {
	sql       strings.Builder
	args      []any
	projectID string
	// bound restricts every read to ids after (">") or equal to ("=")
	// boundID: restricting each operand restricts the whole set, and lets
	// every index range start at the bound.
	boundOp string
	boundID string
	// boundCol, when set, restricts every read to the contact of an outer
	// query's column instead: a correlated membership probe.
	boundCol string
	// orderTop asks for ORDER BY 1 on a top-level compound; depth counts
	// the compounds being written (see orderCompound).
	orderTop bool
	depth    int
	// pg writes PostgreSQL's dialect (audience_sql_postgres.go).
	pg bool
}

func (b *setBuilder) write(parts ...string) {
	for _, p := range parts {
		b.sql.WriteString(p)
	}
}

// arg binds a value and returns its placeholder.
func (b *setBuilder) arg(v any) string {
	b.args = append(b.args, v)
	return "?"
}

// bound writes the id restriction for a read whose id column is col.
func (b *setBuilder) bound(col string) {
	switch {
	case b.boundCol != "":
		b.write(" AND ", col, " = ", b.boundCol)
	case b.boundOp != "":
		b.write(" AND ", col, " ", b.boundOp, " ", b.arg(b.boundID))
	}
}

// operand is one member of a group's compound: a test, a nested OR tree,
// or every contact (the base a group of only negations subtracts from).
type operand struct {
	test         *Test
	match        *Match
	unsubscribed bool // the contacts that are not subscribed
}

// orderCompound ends a compound SELECT with ORDER BY 1. Its operands come
// from indexes in id order, and with an ORDER BY SQLite merges them as
// sorted streams (MERGE (INTERSECT) in the plan) instead of copying each
// into a temporary B-tree, which at a million contacts is the difference
// between tens and hundreds of milliseconds. The top-level compound is
// ordered only when the caller asks (a batch orders and limits it itself).
func (b *setBuilder) orderCompound() {
	b.depth--
	switch {
	case b.depth > 0 && b.pg:
		// PostgreSQL plans a compound by hashing or sorting it whole: an
		// inner order would only cost a sort.
	case b.depth > 0:
		// A subquery's ORDER BY is dropped unless it has a LIMIT; with it,
		// the compound inside still merges.
		b.write(" ORDER BY 1 LIMIT -1")
	case b.orderTop:
		b.write(" ORDER BY 1")
	}
}

// preferSmallerSubscribed rewrites "subscribed", when it is intersected
// with other sets, as the subtraction of the unsubscribed contacts: every
// operand holds only contacts of the project, so A INTERSECT subscribed is
// A EXCEPT unsubscribed, and the unsubscribed are the few (a partial
// index holds just them) where the subscribed are nearly everyone.
func preferSmallerSubscribed(pos, neg []operand) ([]operand, []operand) {
	if len(pos) < 2 {
		return pos, neg
	}
	var keep []operand
	for _, p := range pos {
		if t := p.test; t != nil && !t.Not && t.Source == SourceContact && t.Column == ColumnSubscribed &&
			t.Op == OpEquals && t.Value == true {
			neg = append(neg, operand{unsubscribed: true})
			continue
		}
		keep = append(keep, p)
	}
	if len(keep) == 0 { // only subscribed tests: keep one as the base
		return pos[:1], neg
	}
	return keep, neg
}

// isUnion reports whether a tree is a union of several groups; anything
// else is an intersection and can be merged into its parent group.
func isUnion(m *Match) bool { return m.Any && len(m.Groups) > 1 }

func (b *setBuilder) writeMatch(m *Match) {
	if !isUnion(m) {
		b.writeGroup(flatten(m, nil, nil))
		return
	}
	b.depth++
	defer b.orderCompound()
	b.writeUnion(m)
}

// writeUnion writes G1 UNION G2 ... without an ORDER BY. Compound
// operators run left to right, so one group that is itself a compound is
// written first, inline: (C EXCEPT D) UNION B is "C EXCEPT D UNION B".
// Only the other compound groups need a subquery, whose order SQLite does
// not carry out of it (the merge above sorts it again).
func (b *setBuilder) writeUnion(m *Match) {
	type group struct{ pos, neg []operand }
	groups := make([]group, len(m.Groups))
	head := -1
	for i := range m.Groups {
		pos, neg := preferSmallerSubscribed(flatten(&Match{Groups: m.Groups[i : i+1]}, nil, nil))
		groups[i] = group{pos, neg}
		if head < 0 && isCompound(pos, neg) {
			head = i
		}
	}
	if head > 0 {
		groups[0], groups[head] = groups[head], groups[0]
	}
	for i, g := range groups {
		switch {
		case i > 0 && !isCompound(g.pos, g.neg):
			b.write(" UNION ")
			b.writeOperand(g.pos[0])
		case i > 0:
			b.write(" UNION SELECT cid FROM (")
			b.writeGroup(g.pos, g.neg)
			b.write(") AS s")
		case isCompound(g.pos, g.neg):
			b.writeChain(g.pos, g.neg)
		default:
			b.writeOperand(g.pos[0])
		}
	}
}

// isCompound reports whether a group's SQL is a compound SELECT.
func isCompound(pos, neg []operand) bool {
	return !(len(pos) == 1 && len(neg) == 0 && pos[0].match == nil)
}

// flatten gathers the operands of an intersection. Nested intersections
// join their parent: A AND (B AND NOT C) is A INTERSECT B EXCEPT C.
func flatten(m *Match, pos, neg []operand) ([]operand, []operand) {
	for gi := range m.Groups {
		g := &m.Groups[gi]
		for ti := range g.Tests {
			t := &g.Tests[ti]
			if t.Not {
				neg = append(neg, operand{test: t})
			} else {
				pos = append(pos, operand{test: t})
			}
		}
		switch {
		case g.Nested == nil:
		case isUnion(g.Nested):
			pos = append(pos, operand{match: g.Nested})
		default:
			pos, neg = flatten(g.Nested, pos, neg)
		}
	}
	return pos, neg
}

// writeGroup writes P1 INTERSECT P2 ... EXCEPT N1 EXCEPT N2 ...; SQLite
// evaluates compound operators left to right, which is exactly that.
func (b *setBuilder) writeGroup(pos, neg []operand) {
	pos, neg = preferSmallerSubscribed(pos, neg)
	if isCompound(pos, neg) {
		b.depth++
		defer b.orderCompound()
	}
	b.writeChain(pos, neg)
}

// writeChain writes a group without an ORDER BY. A nested union among the
// positive operands goes first, inline (see writeUnion), so that a tree
// such as A AND (B OR C) is one compound of merged streams.
func (b *setBuilder) writeChain(pos, neg []operand) {
	for i, p := range pos {
		if p.match != nil {
			pos = append([]operand{p}, append(pos[:i:i], pos[i+1:]...)...)
			break
		}
	}
	if len(pos) == 0 {
		b.writeAll()
	}
	for i, p := range pos {
		switch {
		case i == 0 && p.match != nil && b.pg && len(pos)+len(neg) > 1:
			// INTERSECT binds tighter than UNION in PostgreSQL (SQLite
			// reads compounds left to right): the union is bracketed.
			b.write("(")
			b.writeUnion(p.match)
			b.write(")")
		case i == 0 && p.match != nil:
			b.writeUnion(p.match)
		case i > 0:
			b.write(" INTERSECT ")
			fallthrough
		default:
			b.writeOperand(p)
		}
	}
	for _, n := range neg {
		b.write(" EXCEPT ")
		b.writeOperand(n)
	}
}

func (b *setBuilder) writeOperand(o operand) {
	if o.unsubscribed && b.pg {
		b.write("SELECT id AS cid FROM contacts WHERE project_id = ", b.arg(b.projectID), " AND NOT subscribed")
		b.bound("id")
		return
	}
	if o.unsubscribed {
		// The literal 0 is what lets SQLite read the partial index
		// contacts_unsubscribed (migration 00013); without statistics it
		// would pick the wider contacts_by_project_id, so it is named.
		b.write("SELECT id AS cid FROM contacts INDEXED BY contacts_unsubscribed WHERE project_id = ",
			b.arg(b.projectID), " AND subscribed = 0")
		b.bound("id")
		return
	}
	if o.match != nil {
		b.write("SELECT cid FROM (")
		b.writeMatch(o.match)
		b.write(") AS s")
		return
	}
	b.writeTest(o.test)
}

// writeAll writes every contact of the project.
func (b *setBuilder) writeAll() {
	b.write("SELECT id AS cid FROM contacts WHERE project_id = ", b.arg(b.projectID))
	b.bound("id")
}

// writeTest writes the positive set of a test; Not is the caller's EXCEPT.
func (b *setBuilder) writeTest(t *Test) {
	switch t.Source {
	case SourceContact:
		b.contactTest(t)
	case SourceData:
		b.dataTest(t)
	case SourceEvent:
		b.eventTest(t)
	case SourceMembers:
		b.write("SELECT contact_id AS cid FROM segment_members WHERE segment_id = ", b.arg(t.Segment))
		b.bound("contact_id")
	case SourceMatch:
		b.write("SELECT cid FROM (")
		b.writeMatch(t.Match)
		b.write(") AS s")
	default: // SourceNone
		b.write("SELECT id AS cid FROM contacts WHERE FALSE")
	}
}

// comparison is the SQL operator of an ordering Op.
func comparison(op Op) string {
	switch op {
	case OpGreater:
		return ">"
	case OpGreaterEq:
		return ">="
	case OpLess:
		return "<"
	case OpLessEq:
		return "<="
	}
	return "="
}

func columnName(c Column) string {
	switch c {
	case ColumnEmail:
		return "email"
	case ColumnSubscribed:
		return "subscribed"
	case ColumnCreatedAt:
		return "created_at"
	}
	return "updated_at"
}

// contactTest reads contacts_by_project_id (email needs the row).
func (b *setBuilder) contactTest(t *Test) {
	col := columnName(t.Column)
	value := t.Value
	if ms, ok := dateMillis(value); ok {
		value = ms
	}
	b.write("SELECT id AS cid FROM contacts WHERE project_id = ", b.arg(b.projectID))
	if t.Op == OpContains {
		b.write(" AND instr(", col, ", ", b.arg(value), ") > 0")
	} else {
		b.write(" AND ", col, " ", comparison(t.Op), " ", b.arg(value))
	}
	b.bound("id")
}

// dataTest reads contact_values (see migration 00003 for its rows). A
// contact can have several rows under a key (array elements, a numeric
// text's two rows), so every test but equality asks for DISTINCT.
func (b *setBuilder) dataTest(t *Test) {
	if b.pg {
		b.dataTestPostgres(t)
		return
	}
	// Equality reads the primary key, whose rows of one value are in
	// contact order; every other test reads the key's rows in contact
	// order (migration 00013), which DISTINCT and the merges take as they
	// come, rather than a value range that would have to be sorted.
	from := "DISTINCT contact_id AS cid FROM contact_values INDEXED BY contact_values_by_contact"
	if _, isDate := dateMillis(t.Value); isDate && t.Op != OpEquals {
		from = "DISTINCT contact_id AS cid FROM contact_values INDEXED BY contact_values_dates"
	}
	if t.Op == OpEquals {
		from = "contact_id AS cid FROM contact_values"
	}
	b.write("SELECT ", from, " WHERE project_id = ", b.arg(b.projectID),
		" AND key = ", b.arg(t.Key))
	switch ms, isDate := dateMillis(t.Value); {
	case t.Op == OpExists:
	case t.Op == OpEquals:
		b.write(" AND value = ", b.arg(dataScalar(t.Value)))
	case t.Op == OpContains:
		b.write(" AND typeof(value) = 'text' AND instr(lower(value), lower(", b.arg(t.Value), ")) > 0")
	case isDate:
		// Dates are texts starting YYYY-MM-DD (GLOB also keeps out SQLite's
		// own date words, 'now'), and unixepoch is NULL for an invalid date.
		// This WHERE and this expression are, word for word, those of the
		// index contact_values_dates (migration 00018), which holds each
		// date's instant: the test reads it instead of parsing every date.
		b.write(" AND ", dateGlob, " AND ", dateInstant, " ", comparison(t.Op), " ", b.arg(ms))
	case t.Op == OpGreater || t.Op == OpGreaterEq:
		// Numbers sort before every text and blob, so "< ''" keeps the
		// range on numbers; a less-than range stays on them by itself.
		b.write(" AND value ", comparison(t.Op), " ", b.arg(t.Value), " AND value < ''")
	default:
		b.write(" AND value ", comparison(t.Op), " ", b.arg(t.Value))
	}
	b.bound("contact_id")
}

// The partial index contact_values_dates's WHERE and instant (migration
// 00018); the date test must repeat them exactly for SQLite to use it.
const (
	dateGlob    = "value GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*'"
	dateInstant = "CAST(round(unixepoch(value, 'subsec') * 1000) AS INTEGER)"
)

// dataScalar is a value as contact_values stores it: booleans as text.
func dataScalar(v any) any {
	switch v {
	case true:
		return "true"
	case false:
		return "false"
	}
	return v
}

// eventTest reads events_by_name_contact: the ids come in order from the
// index, each once per event, hence DISTINCT (free on an ordered scan).
func (b *setBuilder) eventTest(t *Test) {
	if t.Op == OpLastBefore {
		b.write("SELECT contact_id AS cid FROM events WHERE project_id = ", b.arg(b.projectID),
			" AND name = ", b.arg(t.Key), " AND contact_id IS NOT NULL")
		b.bound("contact_id")
		ms, _ := dateMillis(t.Value)
		b.write(" GROUP BY contact_id HAVING MAX(created_at) < ", b.arg(ms))
		return
	}
	b.write("SELECT DISTINCT contact_id AS cid FROM events WHERE project_id = ", b.arg(b.projectID),
		" AND name = ", b.arg(t.Key), " AND contact_id IS NOT NULL")
	if t.Op == OpSince {
		ms, _ := dateMillis(t.Value)
		b.write(" AND created_at >= ", b.arg(ms))
	}
	b.bound("contact_id")
}

// setSQL returns the SELECT of the audience's contact ids (column cid),
// restricted by a bound when boundOp is not empty, in PostgreSQL's
// dialect when pg is true.
func (a Audience) setSQL(boundOp, boundID string, orderTop, pg bool) (string, []any) {
	return a.build(&setBuilder{projectID: a.ProjectID, boundOp: boundOp, boundID: boundID, orderTop: orderTop, pg: pg})
}

// build writes the audience's set with b.
func (a Audience) build(b *setBuilder) (string, []any) {
	m := a.Match
	if a.SubscribedOnly {
		sub := Test{Source: SourceContact, Column: ColumnSubscribed, Op: OpEquals, Value: true}
		m = &Match{Groups: []MatchGroup{{Tests: []Test{sub}, Nested: m}}}
	}
	if m == nil {
		b.writeAll()
	} else {
		b.writeMatch(m)
	}
	return b.sql.String(), b.args
}

// complementCountSQL counts an audience that only subtracts (every contact
// but those who ...) as the project's contacts minus the union of what it
// subtracts: every set holds only the project's contacts, so the count of
// "all EXCEPT N" is count(all) − count(N), and counting the project's
// contacts is a plain index count rather than a merge of a million ids.
func (a Audience) complementCountSQL(pg bool) (string, []any, bool) {
	if a.Match != nil && isUnion(a.Match) {
		return "", nil, false
	}
	var pos, neg []operand
	if a.Match != nil {
		pos, neg = preferSmallerSubscribed(flatten(a.Match, nil, nil))
	}
	if a.SubscribedOnly {
		// A marketing audience is the same minus the unsubscribed: "every
		// subscribed contact" is the stored count minus the partial index.
		neg = append(neg, operand{unsubscribed: true})
	}
	if len(pos) > 0 || len(neg) == 0 {
		return "", nil, false
	}
	b := &setBuilder{projectID: a.ProjectID, pg: pg}
	b.write("SELECT ")
	b.storedCount(countContacts, "", "") // the project's contacts, stored (audience_counts.go)
	b.write(" - (SELECT COUNT(*) FROM (")
	for i, n := range neg {
		if i > 0 {
			b.write(" UNION ")
		}
		b.writeOperand(n)
	}
	if len(neg) > 1 && !pg {
		b.write(" ORDER BY 1")
	}
	b.write(") AS s)")
	return b.sql.String(), b.args, true
}

// IDsSQL returns a SELECT of the audience's distinct contact ids, in one
// column named cid, with its arguments: for a caller that materialises an
// audience with INSERT ... SELECT (a campaign's fan-out).
// It writes SQLite's dialect.
func (a Audience) IDsSQL() (query string, args []any) { return a.setSQL("", "", true, false) }
