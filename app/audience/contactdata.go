package audience

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
)

// isReservedKey reports the data keys that are silently dropped from input:
// they name values the service fills in itself at render time.
func IsReservedKey(k string) bool {
	switch k {
	case "id", "herald_id", "herald_email", "email", "unsubscribeUrl", "subscribeUrl", "manageUrl":
		return true
	}
	return false
}

// DataInput is a `data` object from a request (contacts, track, send) sorted
// by the spec's five rules. It is the only place those rules live.
type DataInput struct {
	set     map[string]any // rule 1: stored on the contact
	del     []string       // rule 2: null deletes the key
	oneShot map[string]any // rule 4: {value, persistent:false}, used once
	// rule 3 (empty string ignored) and rule 5 (reserved keys dropped)
	// leave no trace.

	// setJSON, when not nil, is set encoded as encodeData encodes it: a
	// contact whose stored data has these very bytes is left unchanged by
	// Apply, which unchangedFor tells without decoding them.
	setJSON []byte
}

// withSetJSON records that setJSON is set's encoding (track has it at hand:
// it is the event's data when the input has no one-shot values).
func (d DataInput) withSetJSON(setJSON []byte) DataInput {
	d.setJSON = setJSON
	return d
}

// unchangedFor reports, without decoding stored, that Apply would leave it
// as it is: stored holds exactly the keys and values that d sets, and d
// deletes nothing. False means only that Apply must tell.
func (d DataInput) unchangedFor(stored []byte) bool {
	return d.setJSON != nil && len(d.del) == 0 && bytes.Equal(stored, d.setJSON)
}

// ParseData sorts a decoded `data` object by the rules. A nil map is an
// empty input.
func ParseData(in map[string]any) DataInput {
	d := DataInput{set: map[string]any{}} // oneShot is made when one comes: most inputs have none
	for k, v := range in {
		switch {
		case IsReservedKey(k):
		case v == nil:
			d.del = append(d.del, k)
		case v == "":
		default:
			if value, persistent, ok := wrappedValue(v); ok {
				if persistent {
					d.set[k] = value
				} else {
					if d.oneShot == nil {
						d.oneShot = map[string]any{}
					}
					d.oneShot[k] = value
				}
				continue
			}
			d.set[k] = v
		}
	}
	return d
}

// wrappedValue recognises {value, persistent}. persistent:true is the same
// as giving the value directly.
func wrappedValue(v any) (value any, persistent, ok bool) {
	obj, isObj := v.(map[string]any)
	if !isObj || len(obj) != 2 {
		return nil, false, false
	}
	value, hasValue := obj["value"]
	persistent, isBool := obj["persistent"].(bool)
	if !hasValue || !isBool {
		return nil, false, false
	}
	return value, persistent, true
}

// Apply merges the input into stored data in place and reports whether
// anything changed.
func (d DataInput) Apply(stored map[string]any) bool {
	changed := false
	for _, k := range d.del {
		if _, ok := stored[k]; ok {
			delete(stored, k)
			changed = true
		}
	}
	for k, v := range d.set {
		if old, ok := stored[k]; !ok || !reflect.DeepEqual(old, v) {
			stored[k] = v
			changed = true
		}
	}
	return changed
}

// Vars are the variables for rendering or recording: the stored data with
// the one-shot values laid over it.
func (d DataInput) Vars(stored map[string]any) map[string]any {
	vars := maps.Clone(stored)
	if vars == nil {
		vars = map[string]any{}
	}
	maps.Copy(vars, d.oneShot)
	return vars
}

// EventJSON is EventData encoded, without the copy when nothing is laid
// over the values set (a tracked event pays for every map it builds).
func (d DataInput) EventJSON() ([]byte, error) {
	if len(d.oneShot) == 0 {
		return json.Marshal(d.set)
	}
	return json.Marshal(d.EventData())
}

// EventData is what an event records of the input: the values given,
// one-shot ones included, without the deletions.
func (d DataInput) EventData() map[string]any {
	out := make(map[string]any, len(d.set)+len(d.oneShot))
	maps.Copy(out, d.set)
	maps.Copy(out, d.oneShot)
	return out
}
