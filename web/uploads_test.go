package web_test

import (
	"bytes"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"regexp"
	"strings"
	"testing"

	"github.com/heraldmail/herald/web/webtest"
)

func encoded(t *testing.T, enc func(io.Writer, image.Image) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := enc(&b, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// webp is the smallest header that is a WebP file by its bytes.
var webp = []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00")

// multipartBody builds a form with one part named field.
func multipartBody(t *testing.T, field, filename, contentType string, data []byte) ([]byte, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="`+field+`"; filename="`+filename+`"`)
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	pw, err := mw.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = pw.Write(data)
	_ = mw.Close()
	return b.Bytes(), mw.FormDataContentType()
}

func uploadImage(t *testing.T, e *webtest.Env, filename, contentType string, data []byte, headers ...string) webtest.Response {
	t.Helper()
	body, ct := multipartBody(t, "file", filename, contentType, data)
	return e.Do("POST", "/uploads/image", "", body, append([]string{"Content-Type", ct}, headers...)...)
}

func TestUploads(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	key := []string{"Authorization", "Bearer " + e.Project.Secret}
	name := regexp.MustCompile(`^http://herald\.test/uploads/[0-9a-f]{32}\.(png|jpg|gif|webp)$`)
	for _, c := range []struct {
		file, declared, want string
		data                 []byte
	}{
		{"a.png", "image/png", "image/png", encoded(t, png.Encode)},
		{"a.jpg", "image/jpeg", "image/jpeg", encoded(t, func(w io.Writer, m image.Image) error { return jpeg.Encode(w, m, nil) })},
		{"a.gif", "", "image/gif", encoded(t, func(w io.Writer, m image.Image) error { return gif.Encode(w, m, nil) })},
		{"a.webp", "application/octet-stream", "image/webp", webp},
	} {
		r := uploadImage(t, e, c.file, c.declared, c.data, key...)
		expectStatus(t, r, 201)
		url, _ := r.JSON()["url"].(string)
		if !name.MatchString(url) {
			t.Fatalf("url %q", url)
		}
		// Served to anyone, with the sniffed type and nosniff.
		got := e.Do("GET", strings.TrimPrefix(url, "http://herald.test"), "", nil)
		expectStatus(t, got, 200)
		if got.Header.Get("Content-Type") != c.want || got.Header.Get("X-Content-Type-Options") != "nosniff" ||
			!bytes.Equal(got.Body, c.data) {
			t.Errorf("%s served as %q %q, %d bytes", c.file, got.Header.Get("Content-Type"),
				got.Header.Get("X-Content-Type-Options"), len(got.Body))
		}
	}

	// Not the image it claims to be.
	expectField(t, uploadImage(t, e, "a.png", "image/png", []byte("<html><script>alert(1)</script></html>"), key...), "file", "invalid_type")
	expectField(t, uploadImage(t, e, "a.txt", "text/plain", []byte("hello"), key...), "file", "invalid_type")
	expectField(t, uploadImage(t, e, "a.png", "image/png", encoded(t, func(w io.Writer, m image.Image) error { return gif.Encode(w, m, nil) }), key...), "file", "invalid_type")
	expectField(t, uploadImage(t, e, "a.png", "image/png", nil, key...), "file", "invalid_type")
	// No file part; not multipart at all.
	body, ct := multipartBody(t, "image", "a.png", "image/png", encoded(t, png.Encode))
	expectField(t, e.Do("POST", "/uploads/image", e.Project.Secret, body, "Content-Type", ct), "file", "invalid_type")
	expectField(t, e.Do("POST", "/uploads/image", e.Project.Secret, map[string]any{"file": "x"}), "file", "invalid_type")
	// Over 5 MiB.
	big := append(encoded(t, png.Encode), make([]byte, 5<<20)...)
	expectError(t, uploadImage(t, e, "big.png", "image/png", big, key...), 413, "PAYLOAD_TOO_LARGE")
	expectError(t, uploadImage(t, e, "big.png", "image/png", big[:5<<20+1], key...), 413, "PAYLOAD_TOO_LARGE")
	expectStatus(t, uploadImage(t, e, "max.png", "image/png", big[:5<<20], key...), 201)
	huge := append(encoded(t, png.Encode), make([]byte, 8<<20)...)
	expectError(t, uploadImage(t, e, "huge.png", "image/png", huge, key...), 413, "PAYLOAD_TOO_LARGE")

	// A resource: a key or the session; the public key is refused.
	expectError(t, uploadImage(t, e, "a.png", "image/png", encoded(t, png.Encode)), 401, "MISSING_AUTH")
	expectError(t, uploadImage(t, e, "a.png", "image/png", encoded(t, png.Encode), "Authorization", "Bearer "+e.Project.Public), 401, "INVALID_API_KEY")
	owner := ownEnvProject(t, e, "owner@example.com")
	body, ct = multipartBody(t, "file", "a.png", "image/png", encoded(t, png.Encode))
	expectStatus(t, owner.in(e.Project.ID, "POST", "/uploads/image", body, "Content-Type", ct), 201)

	expectError(t, e.Do("GET", "/uploads/00000000000000000000000000000000.png", "", nil), 404, "NOT_FOUND")
}

// Uploads survive a reset and go with the project.
func TestUploadsAndProjectLifecycle(t *testing.T) {
	e := webtest.New(t, webtest.Options{NoWorkers: true})
	owner := ownEnvProject(t, e, "owner@example.com")
	r := uploadImage(t, e, "a.png", "image/png", encoded(t, png.Encode), "Authorization", "Bearer "+e.Project.Secret)
	path := strings.TrimPrefix(r.JSON()["url"].(string), "http://herald.test")
	verifiedDomain(t, e, "herald.test")
	expectStatus(t, putLimits(owner, e.Project.ID, map[string]any{"workflows": 1, "campaigns": 2, "transactional": 3, "inbound": 4}), 200)
	expectStatus(t, owner.write("POST", "/users/@me/projects/"+e.Project.ID+"/reset", nil), 200)
	expectStatus(t, e.Do("GET", path, "", nil), 200)
	// Domains and limits stay too.
	if m := getLimits(t, owner, e.Project.ID); m["inbound"].Limit == nil || *m["inbound"].Limit != 4 {
		t.Errorf("limits after reset: %+v", m)
	}
	if r := e.Secret("GET", "/domains/project/"+e.Project.ID, nil); !strings.Contains(string(r.Body), "herald.test") {
		t.Errorf("domains after reset: %s", r.Body)
	}
	expectStatus(t, owner.write("DELETE", "/users/@me/projects/"+e.Project.ID, nil), 204)
	expectStatus(t, e.Do("GET", path, "", nil), http.StatusNotFound)
}
