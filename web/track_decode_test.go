package web

import (
	"reflect"
	"strings"
	"testing"
)

// trackFastBodies are bodies real clients send: each must take the fast
// path, or the fast path has stopped paying for itself.
var trackFastBodies = []string{
	`{"email":"user1@example.com","event":"page-viewed","data":{"path":"/pricing","plan":"pro","visits":42}}`,
	`{"event":"signed-up","email":"a@example.net","subscribed":false}`,
	`{"email":"a@example.net","event":"e","subscribed":true,"data":null}`,
	`{"email":null,"event":null,"subscribed":null}`,
	`{}`,
	" {\n  \"email\" : \"a@example.net\" ,\r\n\t\"event\":\"x\\ty\\n\\\"z\\\\ \\/ \\b\\f\\r\\u00e9\\u2028\\uD83D\\uDE00\\u0000\"\n}\n",
	`{"email":"a@example.net","event":"e","data":{"n":-0.5e+10,"z":0,"big":1e400,"neg":-12,"f":1.25E-3,` +
		`"list":[1,"x",null,true,false,[],{}],"nested":{"a":{"b":[{"c":"d"}]}},"empty":"","gone":null,` +
		`"once":{"value":"v","persistent":false},"repeat":1,"repeat":"last","caf\u00e9":"é ✉ 😀","<tag>":"&amp;"}}`,
	`{"email":"a@example.net","event":"e","data":{"deep":` + strings.Repeat(`{"a":`, 40) + `1` + strings.Repeat(`}`, 40) + `}}`,
}

// trackFallbackBodies are bodies the fast path leaves to encoding/json.
var trackFallbackBodies = []string{
	``, ` `, `null`, `[]`, `"x"`, `{}x`, `{} {}`, `{`, `{"email":"a@example.net",}`,
	`{"Email":"folded key"}`, `{"EMAIL":"a","email":"b"}`, `{"event":"a","event":"b"}`,
	`{"data":{"a":1},"data":{"b":2}}`, `{"unknown":1,"event":"e"}`, `{"ev\u0065nt":"escaped key"}`,
	`{"email":5}`, `{"email":["x"]}`, `{"subscribed":"yes"}`, `{"data":[1]}`, `{"data":"x"}`, `{"data":1}`,
	"{\"event\":\"bad utf-8 \xff\"}", "{\"data\":{\"bad utf-8 \xff\":1}}", `{"event":"lone \ud800 surrogate"}`,
	`{"event":"\x"}`, `{"event":"\u12"}`, "{\"event\":\"tab\tinside\"}",
	`{"subscribed":tru}`, `{"subscribed":truex}`, `{"data":{"a":nul}}`, `{"data":{"a":[1,]}}`, `{"data":{"a":1,}}`,
	`{"data":{"n":01}}`, `{"data":{"n":-}}`, `{"data":{"n":1.}}`, `{"data":{"n":.5}}`, `{"data":{"n":1e}}`,
	`{"data":{"n":1e+}}`, `{"data":{"n":+1}}`, `{"data":{"n":0x1}}`, `{"data":{"n":1.5.5}}`, `{"data":{"n":NaN}}`,
	`{"data":{1:2}}`, `{"data":{"a" 1}}`, `{"data":{"a":1 "b":2}}`, "{\"event\":\"x\"}\x00",
	`{"data":{"deep":` + strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100) + `}}`,
}

// sameTrackAsEncodingJSON decodes body both ways and fails unless the
// results (value and error) are the same.
func sameTrackAsEncodingJSON(t *testing.T, body []byte) {
	t.Helper()
	var got, want trackBody
	gotErr, wantErr := decodeFastBytes(body, &got), decodeBytes(body, &want)
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("%q: error %v, encoding/json gives %v", body, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %#v\nwant %#v", body, got, want)
	}
}

func TestTrackBodyFastPathReadsCommonBodies(t *testing.T) {
	for _, body := range trackFastBodies {
		var b trackBody
		if !b.decodeFast([]byte(body)) {
			t.Errorf("fast path refused %q", body)
		}
		sameTrackAsEncodingJSON(t, []byte(body))
	}
}

func TestTrackBodyFallsBackToEncodingJSON(t *testing.T) {
	for _, body := range trackFallbackBodies {
		var b trackBody
		if b.decodeFast([]byte(body)) {
			t.Errorf("fast path took %q", body)
		}
		sameTrackAsEncodingJSON(t, []byte(body))
	}
}

// FuzzTrackBodyFastPath: whatever the body, POST /v1/track reads it as
// encoding/json does (decodeBytes, the rule for every other route), and
// the fast path never takes a body encoding/json refuses.
func FuzzTrackBodyFastPath(f *testing.F) {
	for _, body := range trackFastBodies {
		f.Add([]byte(body))
	}
	for _, body := range trackFallbackBodies {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sameTrackAsEncodingJSON(t, body)
		var fast, slow trackBody
		if fast.decodeFast(body) && decodeBytes(body, &slow) != nil {
			t.Fatalf("fast path took %q, which encoding/json refuses", body)
		}
	})
}

// BenchmarkTrackBodyDecode: BenchmarkTrackFullStack's body through
// encoding/json alone and through the fast path.
func BenchmarkTrackBodyDecode(b *testing.B) {
	body := []byte(trackFastBodies[0])
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var t trackBody
			if err := decodeBytes(body, &t); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast-path", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var t trackBody
			if !t.decodeFast(body) {
				b.Fatal("refused")
			}
		}
	})
}
