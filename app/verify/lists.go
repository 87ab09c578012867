package verify

import (
	_ "embed"
	"fmt"
	"strings"
)

// The data files are embedded as strings, not an embed.FS, so that the
// parsed entries are substrings of read-only data and cost no copies: the
// disposable list alone has over a hundred thousand entries.
var (
	//go:embed data/disposable.txt
	disposableData string
	//go:embed data/alias.txt
	aliasData string
	//go:embed data/personal.txt
	personalData string
	//go:embed data/role.txt
	roleData string
	//go:embed data/typos.txt
	typosData string
	//go:embed data/typo_targets.txt
	typoTargetsData string
	//go:embed data/lookalikes.txt
	lookalikesData string
)

type set map[string]struct{}

func (s set) has(k string) bool {
	_, ok := s[k]
	return ok
}

// hasSuffixDomain reports whether domain or one of its parent domains is in
// the set, so that x.anonaddy.com matches anonaddy.com.
func (s set) hasSuffixDomain(domain string) bool {
	for {
		if s.has(domain) {
			return true
		}
		_, parent, ok := strings.Cut(domain, ".")
		if !ok {
			return false
		}
		domain = parent
	}
}

// lists holds the parsed data files. It is built once per Verifier and
// never changed afterwards, so it is read without locking.
type lists struct {
	disposable set
	alias      set
	personal   set
	role       set
	lookalike  set
	typos      map[string]string // misspelt domain -> intended domain
	targets    []string          // large providers, in order of preference
}

func loadLists() (*lists, error) {
	typos, err := parsePairs(typosData)
	if err != nil {
		return nil, fmt.Errorf("verify: data/typos.txt: %w", err)
	}
	return &lists{
		disposable: toSet(entries(disposableData)),
		alias:      toSet(entries(aliasData)),
		personal:   toSet(entries(personalData)),
		role:       toSet(entries(roleData)),
		lookalike:  toSet(entries(lookalikesData)),
		typos:      typos,
		targets:    entries(typoTargetsData),
	}, nil
}

// entries returns the lines of a data file without comments ("#" to the end
// of the line), surrounding space and blank lines, lower-cased.
func entries(data string) []string {
	out := make([]string, 0, strings.Count(data, "\n"))
	for line := range strings.Lines(data) {
		line, _, _ = strings.Cut(line, "#")
		line = strings.ToLower(strings.TrimSpace(line))
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

func toSet(keys []string) set {
	s := make(set, len(keys))
	for _, k := range keys {
		s[k] = struct{}{}
	}
	return s
}

// parsePairs reads "from to" lines.
func parsePairs(data string) (map[string]string, error) {
	lines := entries(data)
	out := make(map[string]string, len(lines))
	for _, line := range lines {
		f := strings.Fields(line)
		if len(f) != 2 {
			return nil, fmt.Errorf("want two fields, got %q", line)
		}
		out[f[0]] = f[1]
	}
	return out, nil
}

// isDisposable applies the precedence rule of the package comment: an alias
// service or a personal provider wrongly present in the third-party
// disposable list is not reported.
func (l *lists) isDisposable(domain string) bool {
	return l.disposable.hasSuffixDomain(domain) && !l.isAlias(domain) && !l.isPersonal(domain)
}

func (l *lists) isAlias(domain string) bool { return l.alias.hasSuffixDomain(domain) }

func (l *lists) isPersonal(domain string) bool { return l.personal.has(domain) }

// isRole matches the local part without its +tag, so support+eu@ is a
// role address too.
func (l *lists) isRole(local string) bool {
	base, _, _ := strings.Cut(strings.ToLower(local), "+")
	return l.role.has(base)
}

// isPlusAddressed reports a subaddress: text, "+", text.
func isPlusAddressed(local string) bool {
	base, tag, ok := strings.Cut(local, "+")
	return ok && base != "" && strings.Trim(tag, "+") != ""
}
