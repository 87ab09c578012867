package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/smtpin"
)

// startInbound starts the SMTP listener for bounces and complaints when
// HERALD_INBOUND_LISTEN is set. The returned stop ends it, letting
// messages being received finish until ctx ends.
func startInbound(c *config, a *app.App, log *slog.Logger) (stop func(context.Context), err error) {
	if c.InboundListen == "" {
		return func(context.Context) {}, nil
	}
	if c.InboundHost == "" {
		log.Warn("HERALD_INBOUND_LISTEN is set but HERALD_INBOUND_HOST is not: return paths stay the From address, so no bounce will reach the listener")
	}
	ln, err := net.Listen("tcp", c.InboundListen)
	if err != nil {
		return nil, fmt.Errorf("inbound listen on %s: %w", c.InboundListen, err)
	}
	tlsConfig, err := inboundTLS(c)
	if err != nil {
		ln.Close()
		return nil, err
	}
	srv := smtpin.New(smtpin.Config{Hostname: inboundName(c), TLSConfig: tlsConfig}, a.Messaging.BounceMailbox(), log)
	go func() {
		if err := srv.Serve(ln); err != nil {
			log.Error("inbound smtp stopped", "err", err)
		}
	}()
	log.Info("inbound smtp listening", "addr", ln.Addr().String())
	return func(ctx context.Context) {
		if err := srv.Shutdown(ctx); err != nil {
			log.Warn("shutdown: inbound sessions still open were cut", "err", err)
		}
	}, nil
}

// inboundName is the listener's greeting name: the public inbound host,
// else the EHLO name, else the machine's.
func inboundName(c *config) string {
	for _, name := range []string{c.InboundHost, c.Hostname} {
		if name != "" {
			return name
		}
	}
	name, _ := os.Hostname()
	return name
}
