package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/app/workflow"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/metrics"
	"github.com/heraldmail/herald/resolver"
	"github.com/heraldmail/herald/smtpout"
	"github.com/heraldmail/herald/storage"
	"github.com/heraldmail/herald/web"
	"github.com/heraldmail/herald/web/dashboard"
)

// newMailer builds the outbound SMTP sender.
func newMailer(c *config, dns *resolver.Client, log *slog.Logger) (*smtpout.Sender, error) {
	cfg := smtpout.Config{Hostname: c.Hostname, Port: c.SMTPPort, Relay: c.SMTPRelay,
		RelayUsername: c.SMTPRelayUsername, RelayPassword: c.SMTPRelayPassword, RelayImplicitTLS: c.SMTPRelayTLS,
		NoChunking: !c.SMTPChunking}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return smtpout.New(cfg, dns, &net.Dialer{}, log), nil
}

func newServeCmd(c *config) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the HTTP API and the background workers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			return serve(ctx, c)
		},
	}
	serveFlags(cmd.Flags(), c)
	annotateEnv(cmd.Flags())
	return cmd
}

// serve runs until ctx ends, then shuts down in order: stop accepting and
// finish the requests in flight, stop the workers, close the database.
func serve(ctx context.Context, c *config) error {
	if err := checkSubmissionFlags(c); err != nil {
		return err
	}
	log, err := newLogger(c)
	if err != nil {
		return err
	}
	release, err := lockDataDir(c.DataDir)
	if err != nil {
		return err
	}
	defer release()
	m := metrics.New(metrics.Options{})
	db, err := storage.Open(ctx, c.DataDir, storage.Options{OnBatch: m.WriteBatch})
	if err != nil {
		return err
	}
	defer db.Close()

	clock := clock.System{}
	warnings := configWarnings(c)
	for _, w := range warnings {
		log.Warn(w)
	}
	dns := resolver.New(c.DNSServer, 0)
	var mailer messaging.Mailer // nil in the sandbox: app captures every message instead
	if !c.Sandbox {
		sender, err := newMailer(c, dns, log)
		if err != nil {
			return err
		}
		defer sender.Close()
		mailer = sender
	}
	a := app.New(app.Options{
		DB: db, Clock: clock, Log: log, BaseURL: c.BaseURL, IdempotencyTTL: c.IdempotencyTTL, Workers: c.Workers,
		Verifier: verify.New(verify.Options{DNS: dns, Now: clock.Now}), DNS: dns,
		Mailer: mailer, InboundHost: c.InboundHost, Metrics: m,
		Delivery: messaging.DeliveryOptions{Workers: c.DeliveryWorkers, RetryBase: c.DeliveryRetryBase,
			GiveUp: c.DeliveryGiveUp, Relay: c.SMTPRelay != ""},
		Accounts: accounts.Settings{SessionTTL: c.SessionTTL, Signups: c.Signups, DisableSignups: c.DisableSignups,
			SystemFrom: c.SystemFrom, AutoDisable: c.AutoDisable},
		Sandbox: c.Sandbox, Warnings: adminWarnings(c, warnings),
		Webhooks:               workflow.WebhookOptions{RetryBase: c.WebhookRetryBase, AllowPrivate: c.WebhookAllowPrivate, Resolver: dns},
		PublicProjectRateLimit: projectEngageLimit(c),
	})
	m.Watch(a.MetricsSource())
	handler := web.New(web.Options{App: a, Log: log, Clock: clock, RateLimit: c.RateLimit,
		PublicRateLimit: c.PublicRateLimit, FailedKeyLimit: web.FailedKeyLimit, BodyTimeout: c.HTTPBodyTimeout,
		Warnings: warnings, Metrics: m, MetricsToken: c.MetricsToken,
		Features: map[string]bool{"tracking": true, "smtp": true, "relay": c.SMTPRelay != "",
			"inbound": c.InboundListen != "", "billing": false}})

	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", c.Listen, err)
	}
	ln = web.LimitListener(ln, c.MaxConnections)
	srv := newHTTPServer(c, handler)
	stopInbound, err := startInbound(c, a, log)
	if err != nil {
		ln.Close()
		return err
	}
	stopSubmission, err := startSubmission(c, a, handler.KeyFailures(), log) // after inbound: see startSubmission
	if err != nil {
		ln.Close()
		stopInbound(context.Background())
		return err
	}

	if err := a.Jobs().RecoverInterrupted(ctx); err != nil {
		return err
	}
	if err := a.RecoverIdempotencyKeys(ctx); err != nil {
		return err
	}
	workCtx, stopWork := context.WithCancel(context.WithoutCancel(ctx))
	workDone := make(chan error, 1)
	go func() { workDone <- a.Run(workCtx) }()

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	log.Info("herald listening", "addr", ln.Addr().String(), "data_dir", c.DataDir,
		"dns_server", dns.Server(), "version", version)
	if c.Sandbox {
		log.Warn("sandbox: no email leaves this machine; every one is captured at " +
			strings.TrimSuffix(c.BaseURL, "/") + dashboard.Prefix + "sandbox, and sender domains are verified without DNS")
	}
	firstStartHint(ctx, a, c, log)

	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err = <-serveErr:
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), c.ShutdownGrace)
	defer cancel()
	// The listeners stop at once, each with the whole grace for what is
	// under way (an idle SMTP session holds its listener's shutdown until
	// the grace ends), and all before the workers and the database: a
	// request or a message being received may still be writing.
	var listeners sync.WaitGroup
	for _, stop := range []func(context.Context){
		func(ctx context.Context) {
			if shutErr := srv.Shutdown(ctx); shutErr != nil {
				log.Warn("shutdown: requests still in flight were cut", "err", shutErr)
			}
		},
		stopInbound, stopSubmission,
	} {
		listeners.Add(1)
		go func() { defer listeners.Done(); stop(shutdownCtx) }()
	}
	listeners.Wait()
	stopWork()
	if workErr := <-workDone; workErr != nil {
		log.Error("workers", "err", workErr)
	}
	log.Info("stopped")
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
