package cli

import (
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// httpLimits are the bounds of the HTTP listener and the per-IP rate
// limits; the README's security section lists each with its variable.
type httpLimits struct {
	HTTPBodyTimeout   time.Duration
	HTTPHeaderTimeout time.Duration
	HTTPIdleTimeout   time.Duration
	MaxConnections    int
	PublicRateLimit   int
	// PublicProjectRateLimit: opens and clicks recorded per project per
	// minute (app.Options.PublicProjectRateLimit).
	PublicProjectRateLimit int

	InboundTLSCert, InboundTLSKey string
}

func limitFlags(fs *pflag.FlagSet, c *config) {
	l := &c.httpLimits
	fs.DurationVar(&l.HTTPBodyTimeout, "http-body-timeout", 60*time.Second, "time a request's whole body may take to arrive (408 after it)")
	fs.DurationVar(&l.HTTPHeaderTimeout, "http-header-timeout", 10*time.Second, "time a request's headers may take to arrive")
	fs.DurationVar(&l.HTTPIdleTimeout, "http-idle-timeout", 120*time.Second, "how long an idle keep-alive connection is kept open")
	fs.IntVar(&l.MaxConnections, "max-connections", 1024, "HTTP connections served at once; more wait in the listen backlog")
	fs.IntVar(&l.PublicRateLimit, "public-rate-limit", 1200, "requests per minute per client IP on tracking and subscription links; 0 disables")
	fs.IntVar(&l.PublicProjectRateLimit, "public-project-rate-limit", 60000, "opens and clicks recorded per minute per project; past it the pixel and redirect still answer, unrecorded; 0 disables")
	inboundTLSFlags(fs, c)
}

// projectEngageLimit is the per-project limit of recorded opens and
// clicks, off with every other rate limit under HERALD_RATE_LIMIT=0.
func projectEngageLimit(c *config) int {
	if c.RateLimit == 0 {
		return 0
	}
	return c.PublicProjectRateLimit
}

// newHTTPServer is the API's server with the configured timeouts. A routed
// request's body has its own deadline (web's BodyTimeout, answered 408);
// ReadTimeout, headers and body together, is the backstop for the bodies
// no handler reads (an unknown path, a GET with a body), which net/http
// drains after the handler: without it a trickled body held its
// connection for ever.
func newHTTPServer(c *config, h http.Handler) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: c.HTTPHeaderTimeout, IdleTimeout: c.HTTPIdleTimeout,
		ReadTimeout: c.HTTPHeaderTimeout + c.HTTPBodyTimeout}
}

// configWarnings are the settings that work but hurt delivery, said once
// in the log at start and in GET /config. HERALD_BASE_URL is in every
// List-Unsubscribe header: one-click unsubscribe (RFC 8058) needs https,
// and recipients cannot reach localhost. The EHLO name should be a fully
// qualified name: receivers check it against the sending address.
func configWarnings(c *config) []string {
	var out []string
	u, err := url.Parse(c.BaseURL)
	switch {
	case err != nil || u.Host == "":
		out = append(out, "HERALD_BASE_URL "+strconv.Quote(c.BaseURL)+" is not an absolute URL: links in mail will not work")
	default:
		if u.Scheme != "https" {
			out = append(out, "HERALD_BASE_URL "+strconv.Quote(c.BaseURL)+" is not https: one-click unsubscribe (RFC 8058) requires https")
		}
		if isLocalHost(u.Hostname()) {
			out = append(out, "HERALD_BASE_URL "+strconv.Quote(c.BaseURL)+" points at this machine: recipients cannot reach its links")
		}
	}
	host := c.Hostname
	if host == "" {
		host, _ = os.Hostname()
	}
	if !fullyQualified(host) {
		out = append(out, "HERALD_HOSTNAME "+strconv.Quote(host)+" is not a fully qualified domain name: receiving servers may distrust the EHLO")
	}
	return out
}

func isLocalHost(h string) bool {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	return err == nil && (ip.IsLoopback() || ip.IsUnspecified())
}

// fullyQualified: at least two labels of letters, digits and hyphens, the
// last not numeric (an IP address is not a host name).
func fullyQualified(h string) bool {
	h = strings.TrimSuffix(h, ".")
	labels := strings.Split(h, ".")
	if len(labels) < 2 || len(h) > 253 || isLocalHost(h) {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	last := labels[len(labels)-1]
	return strings.Trim(last, "0123456789") != ""
}
