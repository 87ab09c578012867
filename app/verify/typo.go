package verify

// suggestDomain returns the domain the user probably meant to type, or ""
// when the domain does not look like a typo.
func (l *lists) suggestDomain(domain string) string {
	if fix, ok := l.typos[domain]; ok {
		return fix
	}
	if l.isKnown(domain) {
		return ""
	}
	for _, target := range l.targets {
		if oneEdit(domain, target) {
			return target
		}
	}
	return ""
}

// isKnown reports a domain that is real and used on purpose, so never a
// typo even when it is one edit away from a large provider (email.com and
// gmail.com, cloud.com and icloud.com). Disposable domains are not known in
// this sense: many are typo-squats registered to catch misdirected mail.
func (l *lists) isKnown(domain string) bool {
	return l.personal.has(domain) || l.lookalike.has(domain) || l.isAlias(domain)
}

// oneEdit reports whether a and b differ by exactly one edit: one byte
// substituted, inserted or deleted, or two adjacent bytes transposed (the
// optimal string alignment distance is 1). Domains here are ASCII, so
// bytes are characters.
func oneEdit(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	if len(b)-len(a) > 1 || a == b {
		return false
	}
	i := commonPrefix(a, b)
	if len(a) < len(b) {
		return a[i:] == b[i+1:] // one byte inserted in b at i
	}
	if a[i+1:] == b[i+1:] {
		return true // substitution at i
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
