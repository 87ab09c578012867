package audience

import (
	"strings"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/storage"
)

// fieldKind is a family of condition fields; it decides which operators
// apply and how values read.
type fieldKind int

const (
	kindEmail fieldKind = iota + 1
	kindSubscribed
	kindDate    // createdAt, updatedAt
	kindData    // data.<key>
	kindEvent   // event.<name>, email.<activity>
	kindSegment // segment.<id>, or segment with the id as value
)

// operator describes one operator of DECISIONS.md.
type operator struct {
	op     storage.Op
	not    bool
	window bool // value and unit give a time span back from now
	kinds  []fieldKind
}

// operatorNames lists the operators of DECISIONS.md.
func operatorNames() []string {
	return []string{"equals", "notEquals", "contains", "notContains", "greaterThan", "lessThan",
		"greaterThanOrEqual", "lessThanOrEqual", "exists", "notExists", "within", "olderThan",
		"triggered", "triggeredWithin", "triggeredOlderThan", "notTriggered", "notTriggeredWithin",
		"memberOfSegment", "notMemberOfSegment"}
}

// lookupOperator gives an operator's meaning.
func lookupOperator(name string) (operator, bool) {
	values := []fieldKind{kindEmail, kindSubscribed, kindData}
	texts := []fieldKind{kindEmail, kindData}
	orders := []fieldKind{kindDate, kindData}
	data := []fieldKind{kindData}
	events := []fieldKind{kindEvent}
	members := []fieldKind{kindSegment}
	switch name {
	case "equals":
		return operator{op: storage.OpEquals, kinds: values}, true
	case "notEquals":
		return operator{op: storage.OpEquals, not: true, kinds: values}, true
	case "contains":
		return operator{op: storage.OpContains, kinds: texts}, true
	case "notContains":
		return operator{op: storage.OpContains, not: true, kinds: texts}, true
	case "greaterThan":
		return operator{op: storage.OpGreater, kinds: orders}, true
	case "lessThan":
		return operator{op: storage.OpLess, kinds: orders}, true
	case "greaterThanOrEqual":
		return operator{op: storage.OpGreaterEq, kinds: orders}, true
	case "lessThanOrEqual":
		return operator{op: storage.OpLessEq, kinds: orders}, true
	case "exists":
		return operator{op: storage.OpExists, kinds: data}, true
	case "notExists":
		return operator{op: storage.OpExists, not: true, kinds: data}, true
	case "within": // at or after now minus the span (future dates included)
		return operator{op: storage.OpGreaterEq, window: true, kinds: orders}, true
	case "olderThan": // before now minus the span
		return operator{op: storage.OpLess, window: true, kinds: orders}, true
	case "triggered":
		return operator{op: storage.OpExists, kinds: events}, true
	case "notTriggered":
		return operator{op: storage.OpExists, not: true, kinds: events}, true
	case "triggeredWithin":
		return operator{op: storage.OpSince, window: true, kinds: events}, true
	case "notTriggeredWithin": // includes contacts who never triggered it
		return operator{op: storage.OpSince, not: true, window: true, kinds: events}, true
	case "triggeredOlderThan": // happened, but not within the span
		return operator{op: storage.OpLastBefore, window: true, kinds: events}, true
	case "memberOfSegment":
		return operator{op: storage.OpExists, kinds: members}, true
	case "notMemberOfSegment":
		return operator{op: storage.OpExists, not: true, kinds: members}, true
	}
	return operator{}, false
}

// isEmailActivity reports the email.<activity> fields: events the sending
// feature records on the contact.
func isEmailActivity(a string) bool {
	switch a {
	case "sent", "delivery", "open", "click", "bounce", "complaint":
		return true
	}
	return false
}

// parsedField is a field name understood.
type parsedField struct {
	kind   fieldKind
	column storage.Column
	key    string // data key, event name or segment id
}

// parseField reads a field name through the allow-list. A data key is
// taken literally, dots included.
func parseField(field string) (parsedField, bool) {
	switch field {
	case "email":
		return parsedField{kind: kindEmail, column: storage.ColumnEmail}, true
	case "subscribed":
		return parsedField{kind: kindSubscribed, column: storage.ColumnSubscribed}, true
	case "createdAt":
		return parsedField{kind: kindDate, column: storage.ColumnCreatedAt}, true
	case "updatedAt":
		return parsedField{kind: kindDate, column: storage.ColumnUpdatedAt}, true
	case "segment":
		return parsedField{kind: kindSegment}, true
	}
	prefix, rest, _ := strings.Cut(field, ".")
	if rest == "" || len(rest) > 255 {
		return parsedField{}, false
	}
	switch prefix {
	case "data":
		return parsedField{kind: kindData, key: rest}, true
	case "event":
		return parsedField{kind: kindEvent, key: rest}, true
	case "email":
		return parsedField{kind: kindEvent, key: "email." + rest}, isEmailActivity(rest)
	case "segment":
		return parsedField{kind: kindSegment, key: rest}, true
	}
	return parsedField{}, false
}

// checkFilter validates one filter and translates it into a storage test.
func checkFilter(v *apierr.Validation, path string, f ConditionFilter) filterSpec {
	var spec filterSpec
	pf, ok := parseField(f.Field)
	if !ok {
		v.Add(apierr.FieldPath(path, "field"), "invalid_field", "Unknown field; use email, subscribed, createdAt, updatedAt, "+
			"data.<key>, event.<name>, email.<sent|delivery|open|click|bounce|complaint> or segment.<id>", f.Field)
		return spec
	}
	op, ok := lookupOperator(f.Operator)
	if !ok {
		v.Add(apierr.FieldPath(path, "operator"), "invalid_enum_value", "Unknown operator", f.Operator)
		return spec
	}
	if !hasKind(op.kinds, pf.kind) {
		v.Add(apierr.FieldPath(path, "operator"), "invalid_operator",
			"Operator "+f.Operator+" cannot be used with field "+f.Field+"; use one of "+operatorsFor(pf.kind), f.Operator)
		return spec
	}
	spec.test = storage.Test{Not: op.not, Op: op.op, Column: pf.column, Key: pf.key}
	switch pf.kind {
	case kindEmail, kindSubscribed, kindDate:
		spec.test.Source = storage.SourceContact
	case kindData:
		spec.test.Source = storage.SourceData
	case kindEvent:
		spec.test.Source = storage.SourceEvent
	case kindSegment:
		spec.segment, spec.refPath = segmentRef(v, path, pf, f.Value)
	}
	if op.window {
		spec.window = checkWindow(v, path, f)
		return spec
	}
	spec.test.Value = checkValue(v, apierr.FieldPath(path, "value"), pf.kind, op.op, f.Value)
	return spec
}

func hasKind(kinds []fieldKind, k fieldKind) bool {
	for _, x := range kinds {
		if x == k {
			return true
		}
	}
	return false
}

// operatorsFor lists the operators a kind of field takes, for messages.
func operatorsFor(k fieldKind) string {
	var names []string
	for _, name := range operatorNames() {
		if op, _ := lookupOperator(name); hasKind(op.kinds, k) {
			names = append(names, name)
		}
	}
	return strings.Join(names, ", ")
}

// segmentRef is the id of the segment a membership filter names: in the
// field (segment.<id>) or, with the field "segment", as the value.
func segmentRef(v *apierr.Validation, path string, pf parsedField, value any) (id, at string) {
	if pf.key != "" {
		return pf.key, apierr.FieldPath(path, "field")
	}
	id, ok := value.(string)
	if !ok || id == "" {
		v.Add(apierr.FieldPath(path, "value"), "invalid_type", "Expected the segment id", typeName(value))
	}
	return id, apierr.FieldPath(path, "value")
}
