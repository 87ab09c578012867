package apierr

import "strconv"

// fieldPath joins a validation path: fieldPath("to", 1, "email") is "to.1.email".
func FieldPath(parts ...any) string {
	s := ""
	for i, p := range parts {
		if i > 0 {
			s += "."
		}
		switch v := p.(type) {
		case string:
			s += v
		case int:
			s += strconv.Itoa(v)
		}
	}
	return s
}
