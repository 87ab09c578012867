package audience

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/csvrows"
	"github.com/heraldmail/herald/app/event"
	"github.com/heraldmail/herald/app/verify"
)

// The rules of one CSV import row. They depend on the file alone, never on
// the database, so a rerun of the job finds the same rejections.

// importHeader is a checked header row: email first, then data keys, and
// perhaps a subscribed column.
type importHeader struct {
	columns    []string
	subscribed int // index of the subscribed column; 0 when there is none
}

// readImportHeader reads and checks the header row.
func readImportHeader(r *csvrows.Reader) (importHeader, error) {
	rec, err := r.Next()
	if errors.Is(err, io.EOF) {
		return importHeader{}, errors.New("the file is empty: the first row must be a header starting with email")
	}
	if err != nil {
		return importHeader{}, err
	}
	if rec.Err != nil {
		return importHeader{}, errors.New("the header row is not valid CSV: " + rec.Err.Error())
	}
	h := importHeader{columns: rec.Fields}
	for i := range h.columns {
		h.columns[i] = strings.TrimSpace(h.columns[i])
	}
	if !strings.EqualFold(h.columns[0], "email") {
		return importHeader{}, errors.New("the first column of the header must be email")
	}
	seen := map[string]bool{}
	var repeated []string
	for i, name := range h.columns {
		key := columnKey(name)
		switch {
		case name == "":
			continue // an unnamed column is ignored
		case seen[key]:
			if !containsString(repeated, name) {
				repeated = append(repeated, name)
			}
		case key == "subscribed":
			h.subscribed = i
		}
		seen[key] = true
	}
	if len(repeated) > 0 {
		return importHeader{}, errors.New("the header repeats column names: " + quoteList(repeated) +
			"; give each column a name of its own")
	}
	return h, nil
}

// columnKey is what makes two column names the same: email and subscribed
// in any case, data keys exactly (data keys are case-sensitive).
func columnKey(name string) string {
	if l := strings.ToLower(name); l == "email" || l == "subscribed" {
		return l
	}
	return "data:" + name
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// importRow is a data row that passed the checks.
type importRow struct {
	email      string
	subscribed *bool
	data       map[string]any
}

func (r importRow) contactUpsert() ContactUpsert {
	return ContactUpsert{Email: r.email, Subscribed: r.subscribed, NewSubscribed: true, Reason: event.ReasonAPI,
		Data: ParseData(r.data)}
}

// row checks one record against the header; reason says why it is
// rejected, "" when it is not.
func (h importHeader) row(rec csvrows.Record) (row importRow, reason string) {
	if rec.Err != nil {
		return importRow{}, "malformed CSV: " + rec.Err.Error()
	}
	f := rec.Fields
	if len(f) > len(h.columns) {
		return importRow{}, "row has more fields than the header"
	}
	var v apierr.Validation
	if row.email = verify.CheckEmail(&v, "email", f[0]); row.email == "" {
		return importRow{}, "missing email"
	}
	if v.Err() != nil {
		return importRow{}, "invalid email: " + f[0]
	}
	row.data = map[string]any{}
	for i := 1; i < len(f); i++ {
		switch key := h.columns[i]; {
		case key == "":
		case i == h.subscribed:
			b, ok := parseSubscribed(f[i])
			if !ok {
				return importRow{}, "subscribed must be true, false, yes, no, 1 or 0, not " + strconv.Quote(f[i])
			}
			row.subscribed = b
		default:
			row.data[key] = f[i]
		}
	}
	return row, ""
}

// parseSubscribed reads a subscribed cell: true/false/yes/no/1/0 in any
// case; an empty cell leaves the subscription as it is (nil).
func parseSubscribed(cell string) (*bool, bool) {
	var b bool
	switch strings.ToLower(strings.TrimSpace(cell)) {
	case "":
		return nil, true
	case "true", "yes", "1":
		b = true
	case "false", "no", "0":
		b = false
	default:
		return nil, false
	}
	return &b, true
}
