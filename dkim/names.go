package dkim

// validHostname reports whether s is a dot-separated sequence of LDH labels
// (letters, digits, inner hyphens; 1..63 bytes each; 253 bytes in all).
//
// Selectors and signing domains are pasted verbatim into the DKIM-Signature
// header (s=, d=) and into DNS names, so anything else, a ';' or a CR/LF
// above all, would corrupt the header or inject a new one. Internationalised
// domains must therefore be passed in their A-label (xn--) form, which is
// also what verifiers look up.
func validHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' {
			if !isLDH(s[i]) {
				return false
			}
			continue
		}
		if !validLabel(s[start:i]) {
			return false
		}
		start = i + 1
	}
	return true
}

func validLabel(l string) bool {
	return len(l) >= 1 && len(l) <= 63 && l[0] != '-' && l[len(l)-1] != '-'
}

func isLDH(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}
