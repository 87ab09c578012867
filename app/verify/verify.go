package verify

import (
	"context"
	"strings"
	"time"
)

// Defaults for the zero values of Options.
const (
	DefaultTimeout   = 2 * time.Second
	DefaultCacheTTL  = 5 * time.Minute
	DefaultCacheSize = 4096
)

// Options configure a Verifier. DNS is required.
type Options struct {
	DNS DNS
	// Timeout bounds the DNS lookups of one verification; default 2s.
	Timeout time.Duration
	// CacheTTL is how long lookup results are kept per domain; default 5m,
	// negative to disable caching.
	CacheTTL time.Duration
	// CacheSize bounds the number of cached domains; default 4096.
	CacheSize int
	// Now is the clock for cache expiry; default time.Now.
	Now func() time.Time
	// Lists are the parsed data files; default: parsed by New. Parsing
	// takes tens of milliseconds, so tests that build many Verifiers
	// parse once with LoadLists and share the result, which is read-only.
	Lists *Lists
}

// Lists are the embedded data files, parsed.
type Lists struct{ l *lists }

// LoadLists parses the embedded data files.
func LoadLists() (*Lists, error) {
	l, err := loadLists()
	return &Lists{l}, err
}

// Verifier verifies addresses. It is safe for concurrent use.
type Verifier struct {
	lists   *lists
	cache   *cache
	timeout time.Duration
}

// Result is the verification result of the spec, plus isRole and
// suggestedEmail (see DECISIONS).
type Result struct {
	Email           string   `json:"email"`
	Valid           bool     `json:"valid"`
	IsDisposable    bool     `json:"isDisposable"`
	IsAlias         bool     `json:"isAlias"`
	IsTypo          bool     `json:"isTypo"`
	IsPlusAddressed bool     `json:"isPlusAddressed"`
	IsPersonalEmail bool     `json:"isPersonalEmail"`
	IsRole          bool     `json:"isRole"`
	DomainExists    bool     `json:"domainExists"`
	HasWebsite      bool     `json:"hasWebsite"`
	HasMxRecords    bool     `json:"hasMxRecords"`
	SuggestedEmail  string   `json:"suggestedEmail,omitempty"`
	Reasons         []string `json:"reasons"` // never nil
}

// ValidReason leads the reasons of every valid address, so that they are
// never an empty list.
const ValidReason = "Email appears to be valid"

// New returns a Verifier. It parses the embedded lists (some tens of
// milliseconds), so build one per process and share it.
func New(o Options) *Verifier {
	if o.DNS == nil {
		panic("verify: Options.DNS is required")
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.CacheTTL == 0 {
		o.CacheTTL = DefaultCacheTTL
	}
	if o.CacheSize <= 0 {
		o.CacheSize = DefaultCacheSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Lists == nil {
		l, err := LoadLists()
		if err != nil {
			panic(err) // the data is compiled in; the tests load it
		}
		o.Lists = l
	}
	l := o.Lists.l
	dns := o.DNS
	fetch := func(ctx context.Context, domain string) facts { return lookupFacts(ctx, dns, domain) }
	return &Verifier{
		lists:   l,
		cache:   newCache(o.CacheTTL, o.CacheSize, o.Now, fetch),
		timeout: o.Timeout,
	}
}

// Verify checks one address. It never fails: problems, including DNS
// failures, are reported in the result's flags and reasons. A syntactically
// invalid address is answered without any lookup.
func (v *Verifier) Verify(ctx context.Context, email string) Result {
	email = strings.ToLower(strings.TrimSpace(email))
	r := Result{Email: email, Reasons: []string{}}
	addr, err := parseAddress(email)
	if err != nil {
		r.Reasons = append(r.Reasons, "Email address syntax is invalid: "+err.Error())
		return r
	}
	v.applyLists(&r, addr)
	ctx, cancel := context.WithTimeout(ctx, v.timeout)
	defer cancel()
	f := v.cache.get(ctx, addr.domain, v.timeout)
	applyFacts(&r, f)
	r.Valid = f.acceptsMail() && !r.IsDisposable
	if r.Valid {
		// Plunk says so rather than answer an empty list.
		r.Reasons = append([]string{ValidReason}, r.Reasons...)
	}
	r.Reasons = append(r.Reasons, dnsReasons(f)...)
	if r.IsRole {
		r.Reasons = append(r.Reasons, roleReason(addr.local))
	}
	return r
}

// applyLists sets the flags that depend on the address alone, with the
// reasons for the ones that make an address worse.
func (v *Verifier) applyLists(r *Result, a address) {
	r.IsDisposable = v.lists.isDisposable(a.domain)
	r.IsAlias = v.lists.isAlias(a.domain)
	r.IsPersonalEmail = v.lists.isPersonal(a.domain)
	r.IsRole = v.lists.isRole(a.local)
	r.IsPlusAddressed = isPlusAddressed(a.local)
	if r.IsDisposable {
		r.Reasons = append(r.Reasons, "Domain is a disposable email provider")
	}
	if fix := v.lists.suggestDomain(a.domain); fix != "" {
		r.IsTypo = true
		r.SuggestedEmail = a.local + "@" + fix
		r.Reasons = append(r.Reasons, "Possible typo: did you mean "+r.SuggestedEmail+"?")
	}
}

func applyFacts(r *Result, f facts) {
	r.DomainExists = f.exists()
	r.HasWebsite = f.hasWebsite()
	r.HasMxRecords = f.hasMX()
}
