package message

// Word-at-a-time helpers: the encoders and HTMLToText test eight bytes with
// a few integer operations where a loop would test them one by one.

const (
	ones  = 0x0101010101010101 // 0x01 in every byte of a word
	highs = 0x8080808080808080 // the high bit of every byte
)

// load64 returns the eight bytes of s from i as a little-endian word; the
// compiler turns it into a single load.
func load64[T string | []byte](s T, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// isASCII reports whether s holds only ASCII bytes.
func isASCII[T string | []byte](s T) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if load64(s, i)&highs != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
