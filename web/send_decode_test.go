package web

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// sendBodyHTML is a body like BenchmarkSendEndToEnd's, with characters
// that JSON encoders escape in different ways.
func sendBodyHTML() string {
	return strings.Repeat(`<p>Herald news for {{email}}: "quoted" & <a href="https://example.com/a?b=1&c=2">read</a> — café ✉ 😀</p>`+"\n\t", 40)
}

// marshalSendBody is body as Go (HTML escaped, \u003c) or as a client
// that escapes nothing but what JSON requires encodes it.
func marshalSendBody(t testing.TB, body map[string]any, escapeHTML bool) []byte {
	t.Helper()
	var out strings.Builder
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(body); err != nil {
		t.Fatal(err)
	}
	return []byte(out.String())
}

// fastPathBodies are bodies real clients send: each must take the fast
// path, or the fast path has stopped paying for itself.
func fastPathBodies(t testing.TB) [][]byte {
	html := sendBodyHTML()
	common := map[string]any{"to": "user1@example.net", "from": "news@herald.test",
		"subject": "News {{name ?? \"\"}}", "body": html, "data": map[string]any{"name": "Ada", "n": 1.5, "list": []any{1, "x", nil, true}}}
	full := map[string]any{"to": []any{"a@example.net", map[string]any{"name": "B", "email": "b@example.net"}},
		"from": map[string]any{"name": "Herald", "email": "news@herald.test"}, "name": "Old name",
		"subject": "S", "body": html, "template": nil, "reply": "r@herald.test", "subscribed": true,
		"headers": map[string]any{"X-Campaign": "c1"},
		"attachments": []any{map[string]any{"filename": "a.txt", "content": "aGk=", "contentType": "text/plain",
			"contentId": "a1", "disposition": "inline"}, map[string]any{"filename": "b.txt", "content": "aGk="}}}
	out := [][]byte{
		marshalSendBody(t, common, true), marshalSendBody(t, common, false),
		marshalSendBody(t, full, true), marshalSendBody(t, full, false),
		[]byte(`{"to":"a@example.net","template":"t1","subscribed":false,"subject":null,"attachments":[]}`),
		[]byte(`{"data":{"n":1e400}}`), []byte(`{"to":["a\"]"]}`), []byte(`{"data":{"a":"}"},"to":{"name":"\"}"}}`),
		[]byte(`{"data":{"a":{"b":[{},[],{"c":-0.5e+3}],"d":null},"e":false,"f":0,"g":-12E-2,"h":"x\u00e9","a":2}}`),
		[]byte("{\"data\":{ \"n\" : [ 1 , 2 ] ,\n \"o\" : { } } }"),
		[]byte(`{"data":{"\u0061":1}}`),
		[]byte(`{"data":` + strings.Repeat(`{"x":`, 60) + `1` + strings.Repeat(`}`, 60) + `}`),
		[]byte(" {\n  \"to\" : \"a@example.net\" ,\r\n\t\"body\":\"x\\ty\\n\\\"z\\\\ \\/ \\b\\f\\r\\u00e9\\u2028\\uD83D\\uDE00\\u0000\"\n}\n"),
	}
	// A client that escapes every non-ASCII character (Python's default).
	ascii, err := json.Marshal(common)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	for _, r := range string(ascii) {
		switch {
		case r < 0x80:
			sb.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			sb.WriteString(`\u` + hex4(0xD800+(r>>10)) + `\u` + hex4(0xDC00+(r&0x3FF)))
		default:
			sb.WriteString(`\u` + hex4(r))
		}
	}
	return append(out, []byte(sb.String()))
}

func hex4(r rune) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[r>>12&15], digits[r>>8&15], digits[r>>4&15], digits[r&15]})
}

// fallbackBodies are bodies the fast path leaves to encoding/json.
var fallbackBodies = []string{
	``, ` `, `null`, `[]`, `"x"`, `{}x`, `{} {}`, `{`, `{"to":"a@example.net",}`,
	`{"Subject":"folded key"}`, `{"sUBJECT":"s","subject":"t"}`, `{"subject":"a","subject":"b"}`,
	`{"data":{"a":1},"data":{"b":2}}`, `{"unknown":1,"subject":"s"}`, `{"subj\u0065ct":"escaped key"}`,
	`{"subject":5}`, `{"subject":["x"]}`, `{"subscribed":"yes"}`, `{"to":null}`, `{"to":5}`,
	`{"data":null}`, `{"data":[1]}`, `{"headers":{"X":1}}`, `{"headers":null}`,
	`{"attachments":null}`, `{"attachments":[{"filename":null}]}`, `{"attachments":[{"other":"x"}]}`,
	`{"attachments":[{"content":"a","content":"b"}]}`, `{"attachments":{}}`,
	"{\"body\":\"bad utf-8 \xff\"}", `{"body":"lone \ud800 surrogate"}`, `{"body":"\udc00\ud800"}`,
	`{"body":"\ud83d\u0041"}`, `{"body":"\x"}`, `{"body":"\u12"}`, "{\"body\":\"tab\tinside\"}",
	`{"subscribed":tru}`, `{"subscribed":truex}`, `{"to":["a@example.net"}`, `{"to":{"email":"a"]}`, "{\"body\":\"x\"}\x00",
	`{"data":{"a":01}}`, `{"data":{"a":1.}}`, `{"data":{"a":.5}}`, `{"data":{"a":1e}}`, `{"data":{"a":-}}`,
	`{"data":{"a":+1}}`, `{"data":{"a":1.5.2}}`, `{"data":{"a":tru}}`, `{"data":{"a":nul}}`, `{"data":{"a":[1,]}}`,
	`{"data":{"a":1,}}`, "{\"data\":{\"\xff\":1}}", `{"data":{"a":NaN}}`,
	`{"data":` + strings.Repeat(`{"x":`, 70) + `1` + strings.Repeat(`}`, 70) + `}`,
	`{"to":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
}

// sameAsEncodingJSON decodes body both ways and fails unless the results
// (value and error) are the same.
func sameAsEncodingJSON(t *testing.T, body []byte) {
	t.Helper()
	var got, want sendBody
	gotErr, wantErr := decodeFastBytes(body, &got), decodeBytes(body, &want)
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("%q: error %v, encoding/json gives %v", body, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\n got %#v\nwant %#v", body, got, want)
	}
}

func TestSendBodyFastPathReadsCommonBodies(t *testing.T) {
	for _, body := range fastPathBodies(t) {
		var b sendBody
		if !b.decodeFast(body) {
			t.Errorf("fast path refused %q", body)
		}
		sameAsEncodingJSON(t, body)
	}
}

func TestSendBodyFallsBackToEncodingJSON(t *testing.T) {
	for _, body := range fallbackBodies {
		var b sendBody
		if b.decodeFast([]byte(body)) {
			t.Errorf("fast path took %q", body)
		}
		sameAsEncodingJSON(t, []byte(body))
	}
}

// FuzzSendBodyFastPath: whatever the body, POST /v1/send reads it as
// encoding/json does (decodeBytes, the rule for every other route), and
// the fast path never takes a body encoding/json refuses.
func FuzzSendBodyFastPath(f *testing.F) {
	for _, body := range fastPathBodies(f) {
		f.Add(body)
	}
	for _, body := range fallbackBodies {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		sameAsEncodingJSON(t, body)
		var fast, slow sendBody
		if fast.decodeFast(body) && decodeBytes(body, &slow) != nil {
			t.Fatalf("fast path took %q, which encoding/json refuses", body)
		}
	})
}

// BenchmarkSendBodyDecode: BenchmarkSendEndToEnd's body (10 KB of HTML,
// encoded by Go: every < and > escaped) through encoding/json alone and
// through the fast path.
func BenchmarkSendBodyDecode(b *testing.B) {
	var html strings.Builder
	for html.Len() < 10<<10 {
		html.WriteString(`<p>Herald news for {{email}}: lorem ipsum dolor sit amet, consectetur adipiscing elit. ` +
			`<a href="https://example.com/articles/42">Read more</a></p>`)
	}
	body := marshalSendBody(b, map[string]any{"to": "user1@example.net", "from": "news@herald.test",
		"subject": "News {{name ?? \"\"}}", "body": html.String(), "data": map[string]any{"name": "Ada"}}, true)
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for i := 0; i < b.N; i++ {
			var s sendBody
			if err := decodeBytes(body, &s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("fast-path", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for i := 0; i < b.N; i++ {
			var s sendBody
			if !s.decodeFast(body) {
				b.Fatal("refused")
			}
		}
	})
}
