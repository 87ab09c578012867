package apierr

import (
	"errors"
	"io"
	"testing"
)

// An internal failure leaving a domain function names the operation and
// keeps its cause; a client's error is its answer and stays as it is.
func TestWrapNamesInternalFailuresOnly(t *testing.T) {
	fail := func() (err error) {
		defer Wrap(&err, "audience.UpsertContact")
		return io.ErrUnexpectedEOF
	}
	err := fail()
	if err.Error() != "audience.UpsertContact: unexpected EOF" || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v", err)
	}
	client := NotFound("CONTACT_NOT_FOUND", "Contact not found")
	answer := func() (err error) {
		defer Wrap(&err, "audience.GetContact")
		return client
	}
	if err := answer(); err != error(client) {
		t.Fatalf("a client error was wrapped: %v", err)
	}
	ok := func() (err error) {
		defer Wrap(&err, "audience.GetContact")
		return nil
	}
	if err := ok(); err != nil {
		t.Fatal(err)
	}
}
