package app_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// gen makes random contacts and condition trees for the differential
// test, from small vocabularies so that filters often match.
type gen struct {
	rng     *rand.Rand
	now     time.Time
	emails  []string
	static  string
	dynamic []string
}

var (
	genKeys  = []string{"plan", "age", "score", "tags", "signup", "flag", "zip", "obj", "Mixed.Key", "quo\"te"}
	genTexts = []string{"pro", "Pro", "PRO plus", "free", "Free", "basic", "42", "7", " 7", "-3.5", "0042", "1e2",
		"true", "TRUE", "False", "abc", "", "vip", "VIP", "ünïcode", "ÜNÏCODE"}
	genUnits  = []string{"seconds", "minutes", "hours", "days"}
	genEvents = []string{"purchase", "signup", "email.open", "email.click"}
)

func (g *gen) pick(xs []string) string { return xs[g.rng.IntN(len(xs))] }

func (g *gen) contacts(n int) []*modelContact {
	domains := []string{"example.com", "test.org", "mail.net"}
	out := make([]*modelContact, n)
	for i := range out {
		created := g.now.Add(-time.Duration(g.rng.Int64N(int64(200 * 24 * time.Hour)))).Truncate(time.Millisecond)
		c := &modelContact{id: fmt.Sprintf("c-%05d", i), email: fmt.Sprintf("user%d@%s", i, g.pick(domains)),
			subscribed: g.rng.IntN(4) > 0, created: created, data: g.data(),
			updated: created.Add(time.Duration(g.rng.Int64N(int64(g.now.Sub(created)) + 1))).Truncate(time.Millisecond)}
		for range g.rng.IntN(5) {
			at := g.now.Add(-time.Duration(g.rng.Int64N(int64(100 * 24 * time.Hour)))).Truncate(time.Millisecond)
			c.events = append(c.events, modelEvent{name: g.eventName(), at: at})
		}
		g.emails = append(g.emails, c.email)
		out[i] = c
	}
	return out
}

func (g *gen) eventName() string { return g.pick(genEvents) }

func (g *gen) data() map[string]any {
	d := map[string]any{}
	for _, k := range genKeys {
		if g.rng.IntN(2) == 0 {
			d[k] = g.value(true)
		}
	}
	return d
}

func (g *gen) value(top bool) any {
	switch n := g.rng.IntN(9); {
	case n < 3:
		return g.pick(genTexts)
	case n < 5:
		return g.number()
	case n == 5:
		return g.rng.IntN(2) == 0
	case n == 6:
		return g.date()
	case n == 7 && top:
		var arr []any
		for range g.rng.IntN(4) {
			arr = append(arr, g.value(false))
		}
		if arr == nil {
			arr = []any{}
		}
		return arr
	case n == 8 && top:
		if g.rng.IntN(3) == 0 {
			return nil
		}
		return map[string]any{"a": json.Number("1")}
	}
	return g.pick(genTexts)
}

func (g *gen) number() json.Number {
	if g.rng.IntN(3) == 0 {
		return json.Number(strconv.Itoa(g.rng.IntN(60)-5) + ".5")
	}
	return json.Number(strconv.Itoa(g.rng.IntN(60) - 5))
}

// date is a date text near now, in one of the two forms people store.
func (g *gen) date() string {
	t := g.now.Add(time.Duration(g.rng.Int64N(int64(70*24*time.Hour))) - 60*24*time.Hour).UTC()
	if g.rng.IntN(3) == 0 {
		return t.Format("2006-01-02")
	}
	return t.Format("2006-01-02T15:04:05.000Z")
}

func (g *gen) window(f map[string]any) map[string]any {
	if g.rng.IntN(4) == 0 {
		f["value"] = json.Number(strconv.Itoa(g.rng.IntN(90)+1) + ".5")
	} else {
		f["value"] = json.Number(strconv.Itoa(g.rng.IntN(90) + 1))
	}
	f["unit"] = g.pick(genUnits)
	if g.rng.IntN(2) == 0 {
		f["unit"] = "days"
	}
	return f
}

// tree makes a tree; segments allows membership filters (not inside the
// dynamic segments themselves, which would risk cycles).
func (g *gen) tree(depth int, segments bool) map[string]any {
	logic := "AND"
	if g.rng.IntN(2) == 0 {
		logic = "OR"
	}
	var groups []any
	for range 1 + g.rng.IntN(3) {
		grp := map[string]any{}
		var filters []any
		for range g.rng.IntN(4) {
			filters = append(filters, g.filter(segments))
		}
		if depth < 2 && (len(filters) == 0 || g.rng.IntN(4) == 0) {
			grp["conditions"] = g.tree(depth+1, segments)
		} else if len(filters) == 0 {
			filters = append(filters, g.filter(segments))
		}
		grp["filters"] = filters
		groups = append(groups, grp)
	}
	return map[string]any{"logic": logic, "groups": groups}
}

func (g *gen) filter(segments bool) map[string]any {
	kinds := 9
	if segments {
		kinds = 10
	}
	switch k := g.rng.IntN(kinds); {
	case k == 0:
		return g.emailFilter()
	case k == 1:
		return map[string]any{"field": "subscribed", "operator": g.pick([]string{"equals", "notEquals"}),
			"value": []any{true, false, "true", "FALSE"}[g.rng.IntN(4)]}
	case k == 2:
		return g.dateFilter()
	case k < 7:
		return g.dataFilter()
	case k < 9:
		field := g.eventName()
		if !strings.HasPrefix(field, "email.") {
			field = "event." + field
		}
		op := g.pick([]string{"triggered", "notTriggered", "triggeredWithin", "notTriggeredWithin", "triggeredOlderThan"})
		f := map[string]any{"field": field, "operator": op}
		if op == "triggered" || op == "notTriggered" {
			return f
		}
		return g.window(f)
	}
	return g.segmentFilter()
}

func (g *gen) emailFilter() map[string]any {
	op := g.pick([]string{"equals", "notEquals", "contains", "notContains"})
	value := g.pick([]string{"user1", "EXAMPLE", "test.org", "@", "zzz", "1@"})
	if op == "equals" || op == "notEquals" {
		value = g.pick(g.emails)
		if g.rng.IntN(2) == 0 {
			value = strings.ToUpper(value)
		}
	}
	return map[string]any{"field": "email", "operator": op, "value": value}
}

func (g *gen) dateFilter() map[string]any {
	field := g.pick([]string{"createdAt", "updatedAt"})
	op := g.pick([]string{"within", "olderThan", "greaterThan", "lessThan", "greaterThanOrEqual", "lessThanOrEqual"})
	f := map[string]any{"field": field, "operator": op}
	if op == "within" || op == "olderThan" {
		return g.window(f)
	}
	f["value"] = g.date()
	return f
}

func (g *gen) dataFilter() map[string]any {
	key := g.pick(append(slices.Clone(genKeys), "missing"))
	ops := []string{"equals", "notEquals", "contains", "notContains", "exists", "notExists", "greaterThan",
		"lessThan", "greaterThanOrEqual", "lessThanOrEqual", "within", "olderThan"}
	op := g.pick(ops)
	f := map[string]any{"field": "data." + key, "operator": op}
	switch op {
	case "equals", "notEquals":
		f["value"] = []any{g.pick(genTexts), g.number(), g.rng.IntN(2) == 0}[g.rng.IntN(3)]
	case "contains", "notContains":
		v := g.pick(genTexts)
		for v == "" {
			v = g.pick(genTexts)
		}
		f["value"] = v
	case "within", "olderThan":
		return g.window(f)
	case "greaterThan", "lessThan", "greaterThanOrEqual", "lessThanOrEqual":
		if g.rng.IntN(2) == 0 {
			f["value"] = g.number()
		} else {
			f["value"] = g.date()
		}
	}
	return f
}

func (g *gen) segmentFilter() map[string]any {
	id := g.static
	if len(g.dynamic) > 0 && g.rng.IntN(2) == 0 {
		id = g.dynamic[g.rng.IntN(len(g.dynamic))]
	}
	op := g.pick([]string{"memberOfSegment", "notMemberOfSegment"})
	if g.rng.IntN(2) == 0 {
		return map[string]any{"field": "segment." + id, "operator": op}
	}
	return map[string]any{"field": "segment", "operator": op, "value": id}
}
