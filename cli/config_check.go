package cli

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/heraldmail/herald/app/accounts"
)

// A rule checks an option's value and returns what is allowed when the
// value is not, "" when it is.
type rule func(v string) string

// rules are the checks of the options whose type says too little. Every
// other duration must be > 0 and every other integer >= 0 (defaultRule):
// an option a later change adds is checked without a row here.
var rules = map[string]rule{
	"data-dir":         nonEmpty,
	"log-level":        oneOf("debug", "info", "warn", "error"),
	"log-format":       oneOf("text", "json"),
	"listen":           hostPort(false, 0),
	"base-url":         httpURL,
	"dns-server":       hostPort(true, 1),
	"rate-limit":       intAtLeast(0, "0 (no limit) or more requests per minute"),
	"workers":          intAtLeast(1, "1 or more"),
	"shutdown-grace":   durationAtLeast(0),
	"smtp-port":        port,
	"smtp-relay":       hostPort(true, 1),
	"delivery-workers": intAtLeast(1, "1 or more"),
	"inbound-listen":   hostPort(true, 0),
	// SMTP submission (issue 25)
	"submission-listen":     hostPort(true, 0),
	"submission-tls-listen": hostPort(true, 0),
	"metrics-token":         anything,
	"hostname":              anything,
	"inbound-host":          anything,
	"smtp-relay-username":   anything,
	"smtp-relay-password":   anything,
	"config":                anything,
	"signups":               oneOf(accounts.SignupsFirst, accounts.SignupsOpen, accounts.SignupsInvite),
}

func defaultRule(f *pflag.Flag) rule {
	switch f.Value.Type() {
	case "duration":
		return durationAtLeast(1)
	case "int", "int64", "int32", "uint", "uint64":
		return intAtLeast(0, "0 or more")
	}
	return anything
}

func anything(string) string { return "" }

func nonEmpty(v string) string {
	if v == "" {
		return "a directory path"
	}
	return ""
}

func oneOf(allowed ...string) rule {
	return func(v string) string {
		for _, a := range allowed {
			if v == a {
				return ""
			}
		}
		return "one of " + strings.Join(allowed, ", ")
	}
}

func intAtLeast(lowest int, allowed string) rule {
	return func(v string) string {
		if n, err := strconv.Atoi(v); err != nil || n < lowest {
			return allowed
		}
		return ""
	}
}

func port(v string) string {
	if n, err := strconv.Atoi(v); err != nil || n < 1 || n > 65535 {
		return "a port number, 1..65535"
	}
	return ""
}

// durationAtLeast: 1 means "more than zero", where a zero would quietly
// turn a feature into nonsense (retry at once, forget at once).
func durationAtLeast(lowest time.Duration) rule {
	return func(v string) string {
		d, err := time.ParseDuration(v)
		switch {
		case err == nil && d >= lowest:
			return ""
		case lowest > 0:
			return "a duration more than 0, such as 30s, 5m or 24h"
		}
		return "a duration of 0 or more, such as 30s, 5m or 24h"
	}
}

// hostPort accepts host:port with a port from lowest (0 for a listener:
// any free port) to 65535.
func hostPort(emptyOK bool, lowest int) rule {
	return func(v string) string {
		if v == "" && emptyOK {
			return ""
		}
		_, p, err := net.SplitHostPort(v)
		if n, convErr := strconv.Atoi(p); err == nil && convErr == nil && n >= lowest && n <= 65535 {
			return ""
		}
		if emptyOK {
			return "host:port (such as 127.0.0.1:53 or [::1]:25), or empty"
		}
		return "[host]:port, such as :8080 or 127.0.0.1:8080"
	}
}

func httpURL(v string) string {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "an absolute http:// or https:// URL, such as https://mail.example.com"
	}
	return linkBase(v)
}

// maxBaseURL bounds HERALD_BASE_URL: every link Herald writes starts with
// it, and a List-Unsubscribe URL is one token that cannot be folded, so
// with a token of about 80 characters its header line stays far under
// RFC 5322's 998.
const maxBaseURL = 512

// linkBase checks that the base URL can start a link as it is, in a header
// (List-Unsubscribe's <...>) and in HTML: printable ASCII without spaces,
// quotes or angle brackets (percent-encode anything else), and short
// enough for one header line.
func linkBase(v string) string {
	if len(v) > maxBaseURL {
		return fmt.Sprintf("a URL of at most %d characters", maxBaseURL)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c <= ' ' || c > '~' || c == '<' || c == '>' || c == '"' {
			return "a URL of printable ASCII without spaces, quotes or <>: percent-encode the rest, such as https://mail.example.com/h%C3%A9rald"
		}
	}
	return ""
}

// typeHint is what a value of the flag's type looks like, for values that
// do not even parse.
func typeHint(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "duration":
		return "a duration such as 30s, 5m or 24h"
	case "int", "int64", "int32", "uint", "uint64":
		return "a whole number"
	case "bool":
		return "true or false"
	}
	return "a valid " + f.Value.Type()
}

func badValue(name, value, allowed string) error {
	return configError{fmt.Sprintf("%s=%q is not allowed: want %s", name, value, allowed)}
}

func ruleOf(f *pflag.Flag) rule {
	if r, ok := rules[f.Name]; ok {
		return r
	}
	return defaultRule(f)
}

// allFlags is every option of every command, for checking the
// environment whatever the command: a bad HERALD_SMTP_PORT stops
// `herald project list` too, rather than waiting for the next serve.
func allFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("all", pflag.ContinueOnError)
	c := &config{}
	globalFlags(fs, c)
	serveFlags(fs, c)
	return fs
}

// checkSettings checks every HERALD_* setting of the environment and the
// configuration file against the options' rules.
func checkSettings(s settings) error {
	fs := allFlags()
	known := map[string]bool{}
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		name := envName(f.Name)
		known[name] = true
		v, ok := s.lookup(name)
		if !ok || err != nil {
			return
		}
		if f.Value.Set(v) != nil {
			err = badValue(name, v, typeHint(f))
		} else if allowed := ruleOf(f)(f.Value.String()); allowed != "" {
			err = badValue(name, v, allowed)
		}
	})
	if err != nil {
		return err
	}
	if err := checkSettingPairs(s.lookup); err != nil {
		return err
	}
	var unknown []string
	for name := range s.file {
		if strings.HasPrefix(name, "HERALD_") && !known[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return configError{fmt.Sprintf("configuration file %s: unknown setting %s (see herald serve --help for every HERALD_* variable)", s.path, strings.Join(unknown, ", "))}
	}
	return nil
}

// applySettings sets every flag of cmd not given on the command line from
// its HERALD_* setting, then checks the values given on the command line.
func applySettings(cmd *cobra.Command, s settings) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		if f.Changed {
			if allowed := ruleOf(f)(f.Value.String()); allowed != "" {
				err = badValue("--"+f.Name, f.Value.String(), allowed)
			}
			return
		}
		if v, ok := s.lookup(envName(f.Name)); ok {
			if setErr := f.Value.Set(v); setErr != nil {
				err = badValue(envName(f.Name), v, typeHint(f))
			}
		}
	})
	return err
}

// exitCode is the process's exit status for an error: 2 for a bad
// setting or usage, 1 for anything else.
func exitCode(err error) int {
	if _, ok := err.(configError); ok {
		return 2
	}
	return 1
}

func lookupEnv(name string) (string, bool) { return os.LookupEnv(name) }
