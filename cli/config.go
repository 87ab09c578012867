package cli

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// config is every option Herald takes. Each is declared once, below, as a
// flag; its environment variable is derived from the flag's name
// (--rate-limit is HERALD_RATE_LIMIT). Flags win over the environment, the
// environment over the defaults.
type config struct {
	ConfigFile   string
	MetricsToken string

	DataDir   string
	LogLevel  string
	LogFormat string

	Listen         string
	BaseURL        string
	DNSServer      string
	RateLimit      int
	IdempotencyTTL time.Duration
	Workers        int
	ShutdownGrace  time.Duration

	Hostname          string
	SMTPPort          int
	SMTPRelay         string
	SMTPRelayUsername string
	SMTPRelayPassword string
	SMTPRelayTLS      bool
	SMTPChunking      bool
	DeliveryWorkers   int
	DeliveryRetryBase time.Duration
	DeliveryGiveUp    time.Duration
	InboundListen     string
	InboundHost       string

	SessionTTL     time.Duration
	Signups        string
	DisableSignups bool
	SystemFrom     string
	AutoDisable    bool

	httpLimits
	submissionSettings

	WebhookRetryBase    time.Duration
	WebhookAllowPrivate bool

	Sandbox bool
}

// globalFlags are the options every command takes.
func globalFlags(fs *pflag.FlagSet, c *config) {
	fs.StringVar(&c.ConfigFile, "config", "", "file of HERALD_*=value lines; default: "+defaultConfigFile+" when it exists (the environment wins over the file)")
	fs.StringVar(&c.DataDir, "data-dir", "./herald-data", "directory holding the SQLite database (created if missing)")
	fs.StringVar(&c.LogLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&c.LogFormat, "log-format", "text", "log format: text or json")
}

// serveFlags are the options of the server.
func serveFlags(fs *pflag.FlagSet, c *config) {
	fs.StringVar(&c.Listen, "listen", ":8080", "address the HTTP API listens on")
	fs.StringVar(&c.BaseURL, "base-url", "http://localhost:8080", "public URL of this server, used in links")
	fs.StringVar(&c.DNSServer, "dns-server", "", "DNS resolver (host:port) for every lookup; default: first nameserver of /etc/resolv.conf")
	fs.IntVar(&c.RateLimit, "rate-limit", 1000, "API requests per minute per project; 0 disables")
	fs.DurationVar(&c.IdempotencyTTL, "idempotency-ttl", 24*time.Hour, "how long an Idempotency-Key is remembered")
	fs.IntVar(&c.Workers, "workers", 4, "background jobs run at once")
	fs.DurationVar(&c.ShutdownGrace, "shutdown-grace", 30*time.Second, "how long shutdown waits for requests in flight")
	deliveryFlags(fs, c)
	fs.StringVar(&c.MetricsToken, "metrics-token", "", "bearer token GET /metrics requires; empty: /metrics is open")
	fs.BoolVar(&c.Sandbox, "sandbox", false, "try Herald without DNS: no email leaves this machine, every one is captured in the dashboard's Sandbox page, and sender domains are verified without DNS")
	accountFlags(fs, c)
	limitFlags(fs, c)
	workflowFlags(fs, c)
	submissionFlags(fs, c)
}

// workflowFlags are the options of the workflow engine.
func workflowFlags(fs *pflag.FlagSet, c *config) {
	fs.DurationVar(&c.WebhookRetryBase, "webhook-retry-base", 30*time.Second, "workflow WEBHOOK steps retry after this, then ×2, ×4, ×8")
	fs.BoolVar(&c.WebhookAllowPrivate, "webhook-allow-private", false, "let workflow WEBHOOK steps call loopback, private, link-local and other internal addresses")
}

// accountFlags are the options of dashboard accounts.
func accountFlags(fs *pflag.FlagSet, c *config) {
	fs.DurationVar(&c.SessionTTL, "session-ttl", 168*time.Hour, "how long a dashboard login lasts")
	fs.StringVar(&c.Signups, "signups", "first", "who may sign up: first (only the first user, who becomes the administrator), open (anyone), invite (only emails invited to a project)")
	fs.BoolVar(&c.DisableSignups, "disable-signups", false, "refuse every POST /auth/signup, invitations included (operators create users with herald user create)")
	fs.StringVar(&c.SystemFrom, "system-from", "", "From address of platform mail (email verification, password reset); empty: none, users are verified at signup")
	fs.BoolVar(&c.AutoDisable, "auto-disable", false, "disable a project whose bounce or complaint level is critical")
}

// deliveryFlags are the options of outbound and inbound mail.
func deliveryFlags(fs *pflag.FlagSet, c *config) {
	fs.StringVar(&c.Hostname, "hostname", "", "name Herald gives in EHLO; default: the machine's host name")
	fs.IntVar(&c.SMTPPort, "smtp-port", 25, "port of recipients' mail servers (direct-to-MX delivery)")
	fs.StringVar(&c.SMTPRelay, "smtp-relay", "", "smarthost (host:port) that takes all mail instead of direct-to-MX")
	fs.StringVar(&c.SMTPRelayUsername, "smtp-relay-username", "", "AUTH user name for the smarthost")
	fs.StringVar(&c.SMTPRelayPassword, "smtp-relay-password", "", "AUTH password for the smarthost")
	fs.BoolVar(&c.SMTPRelayTLS, "smtp-relay-tls", false, "connect to the smarthost with implicit TLS (port 465) instead of STARTTLS")
	fs.BoolVar(&c.SMTPChunking, "smtp-chunking", true, "send with BDAT (RFC 3030) to servers that offer CHUNKING; false: always DATA")
	fs.IntVar(&c.DeliveryWorkers, "delivery-workers", 16, "deliveries in flight at once")
	fs.DurationVar(&c.DeliveryRetryBase, "delivery-retry-base", 5*time.Minute, "first retry delay after a temporary failure, doubling after")
	fs.DurationVar(&c.DeliveryGiveUp, "delivery-give-up", 48*time.Hour, "how long temporary failures are retried")
	fs.StringVar(&c.InboundListen, "inbound-listen", "", "address of the SMTP listener for bounces and complaints (e.g. :25); empty: off")
	fs.StringVar(&c.InboundHost, "inbound-host", "", "public host name of the inbound listener, the MX of bounce.<domain>")
}

// envName is the environment variable of a flag.
func envName(flag string) string {
	return "HERALD_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// annotateEnv adds each flag's variable to its help text.
func annotateEnv(fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		f.Usage += " [$" + envName(f.Name) + "]"
		switch f.DefValue {
		case "":
			f.Usage += " (default: empty)"
		case "false":
			f.Usage += " (default false)"
		}
	})
}

func newLogger(c *config) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return nil, fmt.Errorf("log level %q: want debug, info, warn or error", c.LogLevel)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch c.LogFormat {
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, opts)), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", c.LogFormat)
}
