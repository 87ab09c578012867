package verify

import "strings"

// dnsReasons explains the DNS side of a result. A temporary failure is
// said as such and never turned into "does not exist".
func dnsReasons(f facts) []string {
	var out []string
	switch {
	case f.nullMX:
		out = append(out, "Domain does not accept email (null MX record)")
	case f.mx == absent && f.ip == present:
		out = append(out, "Domain has no MX records; mail goes to its A/AAAA address (implicit MX)")
	case f.mx == absent && !f.exists() && f.ip != unknown && f.ns != unknown && f.www != unknown:
		out = append(out, "Domain does not exist")
	case f.mx == absent:
		out = append(out, "Domain has no MX records")
	}
	if failed := failedLookups(f); len(failed) > 0 {
		out = append(out, "DNS lookup failed temporarily ("+strings.Join(failed, ", ")+"); try again later")
	}
	return out
}

// failedLookups names the lookups that failed temporarily and whose answer
// could still have changed the result; a failure that another answer made
// irrelevant (NS when the MX proved the domain exists) is not mentioned.
func failedLookups(f facts) []string {
	var out []string
	if f.mx == unknown {
		out = append(out, "MX")
	}
	if f.ip == unknown && !(f.mx == present && f.www == present) {
		out = append(out, "A/AAAA")
	}
	if f.www == unknown && f.ip != present {
		out = append(out, "www A/AAAA")
	}
	if f.ns == unknown && !f.exists() {
		out = append(out, "NS")
	}
	return out
}

func roleReason(local string) string {
	base, _, _ := strings.Cut(local, "+")
	return "Role address (" + base + "@) usually reaches a team rather than a person"
}
