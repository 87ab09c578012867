package storage

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/klauspost/compress/s2"
)

// Body codecs (email_bodies.codec).
const (
	codecRaw = 0 // the signed bytes as they are
	codecS2  = 1 // an S2 block of them
)

// A stored body is compressed because its pages are most of what a send
// writes: a 27 KB newsletter is seven overflow pages, each written twice
// (to the WAL, then by the checkpoint into the database file), two system
// calls a frame. S2 compresses it in tens of microseconds, against the
// hundreds those writes cost, and HTML compresses 3-10x.

// minPackSize is the size under which a body is stored as it is: it fits
// in its row's page either way.
const minPackSize = 2 << 10

// packedBody is a body ready for email_bodies.
type packedBody struct {
	data  []byte
	codec int
}

// Pack compresses the email's signed bytes for storage, so that a caller
// can do it before its write rather than inside it, where it would hold
// the database's only write lock. InsertEmail packs an email not packed
// yet; Pack after changing Raw again.
func (e *Email) Pack() {
	if e.Raw == nil {
		e.packed = nil
		return
	}
	p := packBody(e.Raw)
	e.packed = &p
}

// packBody compresses raw when that saves at least an eighth of it; bytes
// that do not compress (an attachment already compressed, say) are kept
// as they are.
func packBody(raw []byte) packedBody {
	if len(raw) < minPackSize {
		return packedBody{data: raw, codec: codecRaw}
	}
	scratch := packScratch.Get().(*[]byte)
	defer packScratch.Put(scratch)
	if n := s2.MaxEncodedLen(len(raw)); cap(*scratch) < n {
		*scratch = make([]byte, n)
	}
	enc := s2.Encode((*scratch)[:cap(*scratch)], raw)
	if len(enc) > len(raw)-len(raw)/8 {
		return packedBody{data: raw, codec: codecRaw}
	}
	// A copy of the exact size: the scratch is sized for the worst case,
	// ten times what a newsletter needs, and the packed body waits for its
	// batch's write.
	return packedBody{data: bytes.Clone(enc), codec: codecS2}
}

// packScratch holds compression buffers between packs.
var packScratch = sync.Pool{New: func() any { return new([]byte) }}

// unpackBody returns the signed bytes of a stored body.
func unpackBody(data []byte, codec int) ([]byte, error) {
	switch codec {
	case codecRaw:
		return data, nil
	case codecS2:
		raw, err := s2.Decode(nil, data)
		if err != nil {
			return nil, fmt.Errorf("storage: stored body: %w", err)
		}
		return raw, nil
	}
	return nil, fmt.Errorf("storage: stored body has unknown codec %d", codec)
}
