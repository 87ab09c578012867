package render

// This file reads the expression of an output tag, after preprocess, when
// it is simple enough for a plan (see plan.go):
//
//	operand ( | herald_fallback: operand )* | herald_html   (or herald_text)
//
// where an operand is a variable (name, data.name, name.key…) or a string
// literal. The tokens follow the rules of Liquid's own lexer
// (liquid/expressions/scanner.rl), so that an expression accepted here means
// what it means to Liquid. Anything else, however valid, is refused, and
// the template is rendered by Liquid.

// exprScanner reads an output tag's expression from left to right.
type exprScanner struct {
	src string
	pos int
}

// parseOutput returns the output an expression describes, or false if it
// is not of the simple form above. Liquid has already parsed the
// expression, so it is known to be valid Liquid.
func parseOutput(expr string) (output, bool) {
	s := exprScanner{src: expr}
	var out output
	for {
		op, ok := s.operand()
		if !ok {
			return output{}, false
		}
		out.operands = append(out.operands, op)
		switch s.filter() {
		case filterFallback + ":":
			continue // its argument, the next operand, follows
		case filterHTML:
			out.escape = true
		case filterText:
		case filterURLHTML:
			out.escape, out.url = true, true
		case filterURLText:
			out.url = true
		default:
			return output{}, false
		}
		s.skipSpace()
		return out, s.pos == len(s.src) // the final filter comes last
	}
}

// filter reads "| name" and returns the name, with its colon if it has
// one: "name:" with no space between is one token to Liquid, a filter that
// takes arguments. It returns "" if no filter follows.
func (s *exprScanner) filter() string {
	s.skipSpace()
	if !s.consume('|') {
		return ""
	}
	s.skipSpace()
	start := s.pos
	if _, ok := s.identifier(); !ok {
		return ""
	}
	s.consume(':')
	return s.src[start:s.pos]
}

// operand reads a string literal or a variable.
func (s *exprScanner) operand() (operand, bool) {
	s.skipSpace()
	if lit, ok := s.stringLiteral(); ok {
		return lit, true
	}
	name, ok := s.identifier()
	if !ok || isLiquidKeyword(name) || s.peek() == ':' {
		return nil, false
	}
	path := []string{name}
	for s.consume('.') { // a property; "a .b", valid too, is left to Liquid
		prop, ok := s.identifier()
		if !ok {
			return nil, false
		}
		path = append(path, prop)
	}
	return newVariable(path)
}

// isLiquidKeyword reports whether Liquid's lexer reads name as a literal or
// an operator rather than as a variable.
func isLiquidKeyword(name string) bool {
	switch name {
	case "true", "false", "nil", "and", "or", "contains", "in":
		return true
	}
	return false
}

// stringLiteral reads "…" or '…'. Liquid strings have no escapes: the
// literal ends at the next quote of the same kind.
func (s *exprScanner) stringLiteral() (literal, bool) {
	quote := s.peek()
	if quote != '"' && quote != '\'' {
		return "", false
	}
	for i := s.pos + 1; i < len(s.src); i++ {
		if s.src[i] == quote {
			lit := literal(s.src[s.pos+1 : i])
			s.pos = i + 1
			return lit, true
		}
	}
	return "", false
}

// identifier reads a name as Liquid's lexer does: a letter or underscore,
// then letters, digits, underscores and hyphens, then an optional "?".
func (s *exprScanner) identifier() (string, bool) {
	start := s.pos
	if s.pos == len(s.src) || !isLetter(s.src[s.pos]) {
		return "", false
	}
	s.pos++
	for s.pos < len(s.src) && (isLetter(s.src[s.pos]) || isDigit(s.src[s.pos]) || s.src[s.pos] == '-') {
		s.pos++
	}
	s.consume('?')
	return s.src[start:s.pos], true
}

// skipSpace skips what Liquid's lexer counts as space (C's isspace).
func (s *exprScanner) skipSpace() {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ', '\t', '\n', '\v', '\f', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *exprScanner) peek() byte {
	if s.pos == len(s.src) {
		return 0
	}
	return s.src[s.pos]
}

func (s *exprScanner) consume(c byte) bool {
	if s.pos == len(s.src) || s.src[s.pos] != c {
		return false
	}
	s.pos++
	return true
}

func isLetter(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
