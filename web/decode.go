package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/paging"
)

// Body size limits. A route's row may raise its own.
const (
	defaultBodyLimit = 1 << 20 // 1 MB for JSON bodies
)

// decodeJSON reads a JSON object into dst. An empty body reads as {} so
// that action endpoints take no body. Syntax errors are 400; a value of
// the wrong type is a 422 item at its dot path. Numbers in free-form maps
// stay json.Number, exactly as given.
func decodeJSON(r *http.Request, dst any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	return decodeBytes(body, dst)
}

// bodyPrealloc bounds the buffer readBody sizes from Content-Length before
// any byte arrives: a client may claim a length it never sends.
const bodyPrealloc = 64 << 10

// readBody reads the whole request body, in one buffer sized from
// Content-Length when the client gave it (io.ReadAll alone grows from 512
// bytes, copying a 10 KB body five times).
func readBody(r *http.Request) ([]byte, error) {
	if r.ContentLength <= 0 {
		return io.ReadAll(r.Body)
	}
	// io.ReadAll's loop from a larger start: the +1 lets the read that
	// finds EOF happen without growing the buffer.
	buf := make([]byte, 0, min(r.ContentLength+1, bodyPrealloc))
	for {
		n, err := r.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// decodeBytes is decodeJSON for a body already read.
func decodeBytes(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	// More alone would let a stray '}' or ']' after the value through.
	if len(bytes.TrimSpace(body[dec.InputOffset():])) != 0 {
		return malformed("unexpected data after the JSON value")
	}
	return nil
}

func malformed(detail string) error {
	return &apierr.Error{Kind: apierr.KindBadRequest, Code: "VALIDATION_ERROR", Message: "Malformed JSON: " + detail}
}

func jsonError(err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		field := typeErr.Field
		if field == "" {
			return apierr.Invalid(apierr.FieldError{Field: "", Code: "invalid_type",
				Message: "Expected a JSON object, received " + typeErr.Value, Received: typeErr.Value})
		}
		return apierr.Invalid(apierr.FieldError{Field: field, Code: "invalid_type",
			Message:  "Expected " + jsonTypeName(typeErr.Type.String()) + ", received " + typeErr.Value,
			Received: typeErr.Value})
	}
	return malformed(err.Error())
}

// jsonTypeName names a Go type in the client's terms.
func jsonTypeName(goType string) string {
	goType = strings.TrimPrefix(goType, "*")
	switch {
	case goType == "string":
		return "string"
	case goType == "bool":
		return "boolean"
	case strings.HasPrefix(goType, "map["), strings.HasPrefix(goType, "struct"):
		return "object"
	case strings.HasPrefix(goType, "[]"):
		return "array"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "float"):
		return "number"
	}
	return goType
}

// queryInt reads an integer query parameter; given is false when absent.
// A value that is not a number counts as absent: list parameters fall
// back to their defaults rather than fail.
func queryInt(r *http.Request, name string) (n int, given bool) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, false
	}
	return n, true
}

// queryBool reads true|false; anything else means not given.
func queryBool(r *http.Request, name string) *bool {
	switch strings.ToLower(r.URL.Query().Get(name)) {
	case "true":
		b := true
		return &b
	case "false":
		b := false
		return &b
	}
	return nil
}

// limitParam applies the cursor-list limit rules to ?limit=.
func limitParam(r *http.Request) int {
	n, given := queryInt(r, "limit")
	return paging.ClampLimit(n, given)
}
