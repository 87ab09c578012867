package password

import (
	"context"
	"strings"
	"testing"
)

var fast = Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func TestHashAndCheck(t *testing.T) {
	h := New(fast, 2)
	ctx := context.Background()
	stored, err := h.Hash(ctx, "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stored, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("hash %q does not carry its parameters", stored)
	}
	for pw, want := range map[string]bool{"correct horse": true, "correct hors": false, "": false} {
		ok, err := h.Check(ctx, stored, pw)
		if err != nil || ok != want {
			t.Errorf("Check(%q) = %v, %v; want %v", pw, ok, err, want)
		}
	}
	// Unknown user: never matches, costs a hash.
	if ok, err := h.Check(ctx, "", "anything"); ok || err != nil {
		t.Errorf("dummy check: %v %v", ok, err)
	}
}

// A hash made with other parameters (older, weaker) still checks: the
// parameters are read from the stored string.
func TestCheckUsesStoredParameters(t *testing.T) {
	ctx := context.Background()
	old, _ := New(Params{Memory: 32, Time: 3, Threads: 1, SaltLen: 8, KeyLen: 16}, 1).Hash(ctx, "pw-123456")
	ok, err := New(fast, 1).Check(ctx, old, "pw-123456")
	if !ok || err != nil {
		t.Fatalf("old hash: %v %v", ok, err)
	}
}

func TestMalformedHash(t *testing.T) {
	h := New(fast, 1)
	for _, s := range []string{"x", "$argon2i$v=19$m=1,t=1,p=1$AA$AA", "$argon2id$v=19$m=0,t=1,p=1$AA$AA", "$argon2id$v=19$m=1,t=1,p=1$!!$AA"} {
		if _, err := h.Check(context.Background(), s, "pw"); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// A waiting hash gives up when its context ends.
func TestHashWaitsForASlot(t *testing.T) {
	h := New(fast, 1)
	h.slots <- struct{}{} // the only slot is taken
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := h.Hash(ctx, "pw"); err == nil {
		t.Fatal("hash ran without a slot")
	}
}

// BenchmarkLogin is the cost of one login check with the default
// parameters (the figure docs/decisions.md quotes).
func BenchmarkLogin(b *testing.B) {
	h := New(Default, 1)
	ctx := context.Background()
	stored, err := h.Hash(ctx, "a password of some length")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if ok, _ := h.Check(ctx, stored, "a password of some length"); !ok {
			b.Fatal("no match")
		}
	}
}

// A check for an unknown user (no stored hash) costs what a wrong
// password costs: the medians of a few runs are within a factor of 2.
// An unknown user's check does a wrong password's work: it hashes with
// the same parameters, salt and key lengths, through the same bounded
// slots. (What that costs is measured, not asserted: BenchmarkLogin and
// BenchmarkLoginUnknownEmail, whose ratio is about 1.)
func TestUnknownUserCostsAWrongPassword(t *testing.T) {
	p := Params{Memory: 4 * 1024, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}
	h := New(p, 1)
	ctx := context.Background()
	stored, _ := h.Hash(ctx, "right password")
	gotP, salt, key, err := decode(h.dummyHash())
	wantP, wantSalt, wantKey, _ := decode(stored)
	if err != nil || gotP != wantP || len(salt) != len(wantSalt) || len(key) != len(wantKey) {
		t.Fatalf("dummy hash %+v (salt %d, key %d, %v), a real one %+v (salt %d, key %d)",
			gotP, len(salt), len(key), err, wantP, len(wantSalt), len(wantKey))
	}
	// With the only slot taken, the unknown user's check waits for it as a
	// known user's does: it hashes, it does not answer early.
	for _, s := range []string{stored, ""} {
		if err := h.acquire(ctx); err != nil {
			t.Fatal(err)
		}
		waiting, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { _, err := h.Check(waiting, s, "wrong password"); done <- err }()
		cancel()
		if err := <-done; err != context.Canceled {
			t.Errorf("stored %q: check did not wait for a hashing slot (%v)", s, err)
		}
		h.release()
	}
	if ok, err := h.Check(ctx, "", "right password"); ok || err != nil {
		t.Errorf("unknown user matched: %v %v", ok, err)
	}
}

// BenchmarkLoginUnknownEmail is the same-run baseline of BenchmarkLogin:
// an unknown email must cost the same (ratio about 1).
func BenchmarkLoginUnknownEmail(b *testing.B) {
	h := New(Default, 1)
	ctx := context.Background()
	for b.Loop() {
		if ok, _ := h.Check(ctx, "", "a password of some length"); ok {
			b.Fatal("matched")
		}
	}
}
