package audience

import (
	"encoding/json"
	"testing"

	"github.com/heraldmail/herald/app/jsondata"
)

// unchangedFor may only say "unchanged" when Apply would change nothing.
func TestDataUnchangedForOnlyWhenApplyChangesNothing(t *testing.T) {
	in := map[string]any{"plan": "pro", "visits": json.Number("7"), "tags": []any{"a"}}
	d := ParseData(in)
	d = d.withSetJSON(jsondata.Encode(d.set))
	stored := []string{
		string(jsondata.Encode(d.set)),                 // the same: unchanged
		`{"plan":"pro","tags":["a"],"visits":7,"x":1}`, // a key more
		`{"plan":"pro","tags":["a"],"visits":8}`,       // a value differs
		`{"plan":"pro","tags":["a"],"visits":7.0}`,     // equal number, other text
		`{"visits":7,"plan":"pro","tags":["a"]}`,       // other order
		`{}`,
	}
	for i, s := range stored {
		m, err := jsondata.Decode([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		got, applyChanges := d.unchangedFor([]byte(s)), d.Apply(m)
		if got && applyChanges {
			t.Errorf("%s: unchangedFor says unchanged, Apply changes it", s)
		}
		if want := i == 0; got != want {
			t.Errorf("%s: unchangedFor %v, want %v", s, got, want)
		}
	}
	if ParseData(in).unchangedFor(jsondata.Encode(d.set)) {
		t.Error("unchanged without the set's encoding")
	}
	del := ParseData(map[string]any{"plan": "pro", "gone": nil})
	del = del.withSetJSON(jsondata.Encode(del.set))
	if del.unchangedFor(jsondata.Encode(del.set)) {
		t.Error("unchanged although the input deletes a key")
	}
}
