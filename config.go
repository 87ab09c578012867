package main

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// config is every option Herald takes. Each is declared once, below, as a
// flag; its environment variable is derived from the flag's name
// (--rate-limit is HERALD_RATE_LIMIT). Flags win over the environment, the
// environment over the defaults.
type config struct {
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
}

// globalFlags are the options every command takes.
func globalFlags(fs *pflag.FlagSet, c *config) {
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
}

// envName is the environment variable of a flag.
func envName(flag string) string {
	return "HERALD_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// annotateEnv adds each flag's variable to its help text.
func annotateEnv(fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		f.Usage += " [$" + envName(f.Name) + "]"
	})
}

// applyEnv sets every flag not given on the command line from its
// environment variable, if set.
func applyEnv(cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Changed || err != nil {
			return
		}
		if v, ok := os.LookupEnv(envName(f.Name)); ok {
			if setErr := f.Value.Set(v); setErr != nil {
				err = fmt.Errorf("%s=%q: %w", envName(f.Name), v, setErr)
			}
		}
	})
	return err
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
