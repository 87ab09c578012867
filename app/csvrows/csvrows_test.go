package csvrows

import (
	"encoding/csv"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// read returns every record of s.
func read(t testing.TB, s string) []Record {
	t.Helper()
	r := NewReader(strings.NewReader(s))
	var out []Record
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
}

func ok(row int, fields ...string) Record { return Record{Row: row, Fields: fields} }

func TestLineEndings(t *testing.T) {
	want := []Record{ok(1, "email", "name"), ok(2, "a@x.com", "A"), ok(3, "b@x.com", "B")}
	for name, s := range map[string]string{
		"LF":        "email,name\na@x.com,A\nb@x.com,B\n",
		"CRLF":      "email,name\r\na@x.com,A\r\nb@x.com,B\r\n",
		"CR":        "email,name\ra@x.com,A\rb@x.com,B\r",
		"no end":    "email,name\na@x.com,A\nb@x.com,B",
		"mixed":     "email,name\ra@x.com,A\r\nb@x.com,B\n",
		"BOM, CRLF": "\ufeffemail,name\r\na@x.com,A\r\nb@x.com,B",
	} {
		if got := read(t, s); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %v", name, got)
		}
	}
}

func TestQuotedFields(t *testing.T) {
	got := read(t, "a, \"b,c\" ,\"say \"\"hi\"\"\"\n\"multi\r\nline\",x\n\"\",\n")
	want := []Record{ok(1, "a", "b,c", `say "hi"`), ok(2, "multi\nline", "x"), ok(3, "", "")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
}

func TestBlankLinesAreCountedNotReturned(t *testing.T) {
	got := read(t, "h\n\n  \na\r\rb\n")
	want := []Record{ok(1, "h"), ok(4, "a"), ok(6, "b")}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
}

// A malformed record is reported with its row and costs only itself.
func TestMalformedRecordsCostOnlyThemselves(t *testing.T) {
	cases := []struct {
		in   string
		want []Record
	}{
		{"h\na\"b,c\nd\n", []Record{ok(1, "h"), {Row: 2, Err: errBareQuote}, ok(3, "d")}},
		{"h\n\"a\"b,c\nd\n", []Record{ok(1, "h"), {Row: 2, Err: errAfterQuote}, ok(3, "d")}},
		// An unclosed quote reads ahead, gives up at the end, and the
		// lines it read are records again.
		{"h\n\"a,b\nc,d\ne\n", []Record{ok(1, "h"), {Row: 2, Err: errUnclosed}, ok(3, "c", "d"), ok(4, "e")}},
		// It closes on a later line with text after it: the first line is
		// the bad record, the next lines are read again.
		{"h\n\"a\nb,\"c\"x\nd\n", []Record{ok(1, "h"), {Row: 2, Err: errAfterQuote}, {Row: 3, Err: errAfterQuote}, ok(4, "d")}},
	}
	for _, c := range cases {
		got := read(t, c.in)
		if len(got) == 0 || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q:\n got %v\nwant %v", c.in, got, c.want)
		}
	}
}

func TestRunawayQuoteIsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("h\n\"open\n")
	for range 2 * MaxRecordLines {
		b.WriteString("x@y.z,1\n")
	}
	got := read(t, b.String())
	if len(got) != 2+2*MaxRecordLines || got[1].Err != errUnclosed || got[2].Fields[0] != "x@y.z" || got[len(got)-1].Row != 2+2*MaxRecordLines {
		t.Fatalf("%d records, %v %v", len(got), got[1], got[len(got)-1])
	}
	long := "h\n" + strings.Repeat("x", MaxRecordBytes+10) + "\nnext\n"
	got = read(t, long)
	if len(got) != 3 || got[1].Err != errTooLong || got[2].Fields[0] != "next" {
		t.Fatalf("long line: %d records, %v", len(got), got[2])
	}
}

// FuzzReader checks, for any input, that reading ends, numbers rows
// upwards, gives each record fields or an error, and agrees with
// encoding/csv wherever that reads the input without error.
func FuzzReader(f *testing.F) {
	for _, s := range []string{"email,name\na@x.com,A\n", "a\rb\r\nc\n", "\"a\"\"b\",\"c\nd\"\n", "x\"y\n\"z", "\ufeffa, b\n\n,\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := read(t, s)
		last := 0
		for _, r := range got {
			if r.Row <= last || (r.Err == nil) == (r.Fields == nil) {
				t.Fatalf("%q: bad record %+v after row %d", s, r, last)
			}
			last = r.Row
		}
		if strings.ContainsAny(s, "\r\ufeff") || strings.Count(s, "\n") > MaxRecordLines/2 || hasSpaceLine(s) {
			return // what we read differently on purpose
		}
		cr := csv.NewReader(strings.NewReader(s))
		cr.FieldsPerRecord, cr.TrimLeadingSpace = -1, true
		want, err := cr.ReadAll()
		if err != nil {
			return
		}
		var fields [][]string
		for _, r := range got {
			if r.Err != nil {
				t.Fatalf("%q: encoding/csv reads it, we refuse row %d: %v", s, r.Row, r.Err)
			}
			fields = append(fields, r.Fields)
		}
		if !reflect.DeepEqual(fields, want) {
			t.Fatalf("%q:\n got %q\nwant %q", s, fields, want)
		}
	})
}

// hasSpaceLine reports a line of only spaces and tabs, which encoding/csv
// reads as a record and we as a blank line.
func hasSpaceLine(s string) bool {
	for _, l := range strings.Split(s, "\n") {
		if l != "" && strings.TrimSpace(l) == "" {
			return true
		}
	}
	return false
}
