// Package verify computes the result of POST /v1/verify: whether an email
// address can receive mail, and what kind of address it is.
//
// # When an address is valid
//
//	valid = syntax is valid
//	     && the domain accepts mail
//	     && the domain is not a disposable provider
//
// The domain accepts mail when it publishes MX records, or when it
// definitely publishes none (NXDOMAIN or an empty answer) but has an A or
// AAAA record: the implicit MX of RFC 5321 section 5.1. A null MX (RFC 7505,
// the single host ".") means the domain refuses mail: hasMxRecords is false
// and valid is false even if the domain has addresses.
//
// isTypo does not change valid: the typo domain may really exist, so the
// caller decides, and suggestedEmail says what was probably meant. isAlias,
// isPersonalEmail, isRole and isPlusAddressed are informational.
//
// # DNS
//
// MX, A/AAAA of the domain, A/AAAA of www.<domain> and NS are asked
// concurrently through the injected DNS, all bounded by Options.Timeout.
// hasWebsite is true when the domain or www.<domain> has an address;
// domainExists when any of these lookups found a record.
//
// Only a definite answer counts as a negative. A lookup that failed any
// other way (SERVFAIL, timeout, network error) proves nothing: it makes no
// flag true and no flag "absent", valid stays false because acceptance of
// mail could not be confirmed, and reasons say the lookup failed
// temporarily instead of claiming the domain does not exist. Such results
// are not cached, so the next call asks again.
//
// Lookup results are cached per domain for Options.CacheTTL in a bounded
// LRU owned by the Verifier; concurrent verifications of one domain share
// one set of lookups.
//
// # Lists
//
// The lists are plain-text files under data/, compiled in with go:embed;
// each file's header says where it comes from. Matching is on the domain in
// A-label form. Disposable and alias domains also cover their subdomains;
// personal providers match exactly. When lists overlap, an alias service
// or a personal provider is never reported disposable, because its
// addresses reach a real, lasting mailbox.
//
// A domain is reported as a typo when data/typos.txt lists it, or when it is
// one edit (a changed, added or removed character, or two neighbours
// swapped) away from a large provider of data/typo_targets.txt and is not
// itself a known personal, alias or lookalike domain.
package verify
