package audience

import (
	"context"
	"encoding/json"
	"math"
	"strings"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/storage"
)

// Field is a contact field with its inferred type and how many contacts,
// in whole percent, have a value for it.
type Field struct {
	Field    string `json:"field"`
	Type     string `json:"type"` // string | number | boolean | date
	Coverage int    `json:"coverage"`
	Standard bool   `json:"standard"`
}

// Fields is the response of GET /contacts/fields.
type Fields struct {
	Fields []Field `json:"fields"`
	Count  int     `json:"count"`
}

// ContactFields lists the standard fields and every custom data key.
// Custom keys are named data.<key>, as conditions refer to them.
func (a *Service) ContactFields(ctx context.Context, projectID string) (Fields, error) {
	r := a.db.Reader()
	total, err := storage.CountContacts(ctx, r, storage.ContactFilter{ProjectID: projectID})
	if err != nil {
		return Fields{}, err
	}
	stats, err := storage.ContactFieldStats(ctx, r, projectID)
	if err != nil {
		return Fields{}, err
	}
	full := 0
	if total > 0 {
		full = 100
	}
	fields := []Field{
		{Field: "email", Type: "string", Coverage: full, Standard: true},
		{Field: "subscribed", Type: "boolean", Coverage: full, Standard: true},
		{Field: "createdAt", Type: "date", Coverage: full, Standard: true},
		{Field: "updatedAt", Type: "date", Coverage: full, Standard: true},
	}
	for _, s := range stats {
		fields = append(fields, Field{Field: "data." + s.Key, Type: InferType(s), Coverage: percent(s.Count, total)})
	}
	return Fields{Fields: fields, Count: len(fields)}, nil
}

// inferType names the type every value of a key has; mixed keys are strings.
func InferType(s storage.FieldStat) string {
	switch s.Count {
	case s.Numbers:
		return "number"
	case s.Booleans:
		return "boolean"
	case s.Dates:
		return "date"
	}
	return "string"
}

func percent(n, total int) int {
	if total == 0 {
		return 0
	}
	return int(math.Round(float64(n) * 100 / float64(total)))
}

// fieldKey accepts a custom field as "plan" or "data.plan".
func fieldKey(field string) (string, error) {
	key := strings.TrimPrefix(field, "data.")
	if key == "" || len(key) > 255 {
		return "", apierr.Invalid(apierr.FieldError{Field: "field", Code: "invalid_string", Message: "Field name must be 1 to 255 characters", Received: field})
	}
	return key, nil
}

// FieldValues is the response of GET /contacts/fields/{field}/values, in
// Plunk's shape: the distinct values themselves, most frequent first, how
// many there are, and the limit applied.
type FieldValues struct {
	Field  string            `json:"field"`
	Values []json.RawMessage `json:"values"`
	Count  int               `json:"count"`
	Limit  int               `json:"limit"`
}

// Field value list sizes: Plunk's default and ceiling.
const (
	defaultFieldValues = 100
	maxFieldValues     = 200
)

// ContactFieldValues lists the most frequent distinct values of a custom
// field; limit 0 (not given) is 100, and more than 200 is 200.
func (s *Service) ContactFieldValues(ctx context.Context, projectID, field string, limit int) (FieldValues, error) {
	key, err := fieldKey(field)
	if err != nil {
		return FieldValues{}, err
	}
	if limit <= 0 {
		limit = defaultFieldValues
	}
	limit = min(limit, maxFieldValues)
	vals, err := storage.ContactFieldValues(ctx, s.db.Reader(), projectID, key, limit)
	out := make([]json.RawMessage, len(vals))
	for i, v := range vals {
		out[i] = v.Value
	}
	return FieldValues{Field: "data." + key, Values: out, Count: len(out), Limit: limit}, err
}

// Usage says where a field or an event name is referenced. Segments,
// campaigns, templates and workflows fill it as they come to exist.
type Usage struct {
	Name      string `json:"name"`
	Segments  []any  `json:"segments"`
	Campaigns []any  `json:"campaigns"`
	Templates []any  `json:"templates"`
	Workflows []any  `json:"workflows"`
	InUse     bool   `json:"inUse"`
}

func emptyUsage(name string) Usage {
	return Usage{Name: name, Segments: []any{}, Campaigns: []any{}, Templates: []any{}, Workflows: []any{}}
}

// ContactFieldUsage says where a custom field is referenced.
func (s *Service) ContactFieldUsage(ctx context.Context, projectID, field string) (Usage, error) {
	key, err := fieldKey(field)
	if err != nil {
		return Usage{}, err
	}
	return emptyUsage("data." + key), nil
}

// DeleteContactField removes a custom field from every contact.
func (s *Service) DeleteContactField(ctx context.Context, projectID, field string) (map[string]any, error) {
	key, err := fieldKey(field)
	if err != nil {
		return nil, err
	}
	var n int64
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		n, err = tx.DeleteContactField(ctx, projectID, key, s.now())
		return err
	})
	return map[string]any{"field": "data." + key, "contactsUpdated": n}, err
}
