package storage

import "math/bits"

// A bitset is a set of contact numbers (contacts' rowids): bit n of word
// n/64. Words before lo are zero and not stored, so that a project whose
// contacts have high rowids does not pay for the others' range. A bitset
// in the cache is shared by concurrent counts and never modified; every
// operation returns a new one.
type bitset struct {
	lo    int // index of words[0]
	words []uint64
}

func (b bitset) hi() int { return b.lo + len(b.words) }

// bitsetOf builds the set of nums.
func bitsetOf(nums []uint32) bitset {
	if len(nums) == 0 {
		return bitset{}
	}
	lo, hi := int(nums[0]>>6), int(nums[0]>>6)
	for _, n := range nums {
		w := int(n >> 6)
		lo, hi = min(lo, w), max(hi, w)
	}
	b := bitset{lo: lo, words: make([]uint64, hi-lo+1)}
	for _, n := range nums {
		b.words[int(n>>6)-lo] |= 1 << (n & 63)
	}
	return b
}

func (b bitset) has(n uint32) bool {
	w := int(n>>6) - b.lo
	return w >= 0 && w < len(b.words) && b.words[w]&(1<<(n&63)) != 0
}

func (b bitset) count() int {
	n := 0
	for _, w := range b.words {
		n += bits.OnesCount64(w)
	}
	return n
}

func (b bitset) and(o bitset) bitset {
	lo, hi := max(b.lo, o.lo), min(b.hi(), o.hi())
	if lo >= hi {
		return bitset{}
	}
	out := bitset{lo: lo, words: make([]uint64, hi-lo)}
	x, y := b.words[lo-b.lo:], o.words[lo-o.lo:]
	for i := range out.words {
		out.words[i] = x[i] & y[i]
	}
	return out
}

func (b bitset) andNot(o bitset) bitset {
	out := bitset{lo: b.lo, words: make([]uint64, len(b.words))}
	copy(out.words, b.words)
	lo, hi := max(b.lo, o.lo), min(b.hi(), o.hi())
	for w := lo; w < hi; w++ {
		out.words[w-b.lo] &^= o.words[w-o.lo]
	}
	return out
}

func (b bitset) or(o bitset) bitset {
	if len(b.words) == 0 {
		return o
	}
	if len(o.words) == 0 {
		return b
	}
	lo, hi := min(b.lo, o.lo), max(b.hi(), o.hi())
	out := bitset{lo: lo, words: make([]uint64, hi-lo)}
	copy(out.words[b.lo-lo:], b.words)
	for i, w := range o.words {
		out.words[o.lo-lo+i] |= w
	}
	return out
}

// each calls f with every member, in increasing order, until f is false.
func (b bitset) each(f func(uint32) bool) {
	for i, w := range b.words {
		for w != 0 {
			n := uint32((b.lo+i)<<6 + bits.TrailingZeros64(w))
			if !f(n) {
				return
			}
			w &= w - 1
		}
	}
}

func (b bitset) bytes() int64 { return int64(len(b.words)) * 8 }

// A cset is a set of a project's contacts held as its members or, when
// comp is set, as the contacts it leaves out: NOT is free, and a count of
// "every contact but ..." needs no set of every contact, only their
// number (every set here holds only the project's contacts).
type cset struct {
	b    bitset
	comp bool
}

func (s cset) not() cset { return cset{s.b, !s.comp} }

// every is every contact, the identity of intersection; none is nobody.
func every() cset { return cset{comp: true} }
func none() cset  { return cset{} }

func (s cset) and(o cset) cset {
	switch {
	case !s.comp && !o.comp:
		return cset{b: s.b.and(o.b)}
	case !s.comp:
		return cset{b: s.b.andNot(o.b)}
	case !o.comp:
		return cset{b: o.b.andNot(s.b)}
	}
	return cset{b: s.b.or(o.b), comp: true}
}

func (s cset) or(o cset) cset {
	return s.not().and(o.not()).not()
}

// count is the number of members, given the project's number of contacts.
func (s cset) count(contacts int) int {
	if s.comp {
		return contacts - s.b.count()
	}
	return s.b.count()
}

func (s cset) has(n uint32) bool { return s.b.has(n) != s.comp }
