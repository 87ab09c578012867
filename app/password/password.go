// Package password hashes and checks account passwords with argon2id.
//
// A hash is stored as a PHC string that carries its own parameters
// ($argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>), so the parameters can be
// raised later without invalidating the hashes already stored: a hash is
// always checked with the parameters it was made with.
//
// Each hash costs Memory KiB for its duration, so a Hasher runs at most
// Concurrency of them at once; a flood of logins waits its turn (or gives
// up when its request ends) instead of exhausting memory.
package password

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id's cost parameters.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
	SaltLen int
	KeyLen  uint32
}

// Default follows OWASP's password storage guidance for argon2id
// (m=19 MiB, t=2, p=1): about 20-40 ms on one core of a current machine.
var Default = Params{Memory: 19 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}

// Hasher makes and checks hashes with bounded concurrency.
type Hasher struct {
	params Params
	slots  chan struct{}

	dummyOnce sync.Once
	dummy     string
}

// New returns a Hasher. concurrency <= 0 means GOMAXPROCS.
func New(p Params, concurrency int) *Hasher {
	if p.Memory == 0 {
		p = Default
	}
	if concurrency <= 0 {
		concurrency = runtime.GOMAXPROCS(0)
	}
	return &Hasher{params: p, slots: make(chan struct{}, concurrency)}
}

// Params returns the parameters new hashes are made with.
func (h *Hasher) Params() Params { return h.params }

func (h *Hasher) acquire(ctx context.Context) error {
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (h *Hasher) release() { <-h.slots }

// Hash returns the PHC string of a new hash of pw.
func (h *Hasher) Hash(ctx context.Context, pw string) (string, error) {
	salt := make([]byte, h.params.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	return encode(h.params, salt, argon2.IDKey([]byte(pw), salt, h.params.Time, h.params.Memory, h.params.Threads, h.params.KeyLen)), nil
}

// Check reports whether pw matches the stored hash. An empty stored hash
// (no such user) is checked against a dummy hash of the same parameters,
// so that a wrong email costs what a wrong password costs; it never
// matches.
func (h *Hasher) Check(ctx context.Context, stored, pw string) (bool, error) {
	known := stored != ""
	if !known {
		stored = h.dummyHash()
	}
	p, salt, want, err := decode(stored)
	if err != nil {
		return false, err
	}
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	got := argon2.IDKey([]byte(pw), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	h.release()
	return known && subtle.ConstantTimeCompare(got, want) == 1, nil
}

// dummyHash is a hash of a random password, made once and without the
// cost of hashing (its value is never matched, only its cost matters).
func (h *Hasher) dummyHash() string {
	h.dummyOnce.Do(func() {
		salt := make([]byte, h.params.SaltLen)
		key := make([]byte, h.params.KeyLen)
		_, _ = rand.Read(salt)
		_, _ = rand.Read(key)
		h.dummy = encode(h.params, salt, key)
	})
	return h.dummy
}

var b64 = base64.RawStdEncoding

func encode(p Params, salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// ErrMalformed is a stored hash that is not an argon2id PHC string.
var ErrMalformed = errors.New("password: malformed hash")

func decode(s string) (Params, []byte, []byte, error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return Params{}, nil, nil, ErrMalformed
	}
	var v int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &v); err != nil || v != argon2.Version {
		return Params{}, nil, nil, ErrMalformed
	}
	var p Params
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil ||
		p.Memory == 0 || p.Time == 0 || p.Threads == 0 {
		return Params{}, nil, nil, ErrMalformed
	}
	salt, err1 := b64.DecodeString(parts[4])
	key, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(key) == 0 {
		return Params{}, nil, nil, ErrMalformed
	}
	return p, salt, key, nil
}
