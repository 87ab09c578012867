package cli

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/smtpin"
	"github.com/heraldmail/herald/web"
)

// startSubmission starts the SMTP submission listeners that are set
// (HERALD_SUBMISSION_LISTEN, HERALD_SUBMISSION_TLS_LISTEN), both served
// by one smtpin.Submission with the app's Submitter. failures is the
// API's wrong-key counter, nil with rate limits off. The returned stop
// ends them, letting messages being received finish until ctx ends.
//
// serve calls it after startInbound: the self-signed certificate both may
// use is created by whichever loads it first, one after the other, never
// at once.
func startSubmission(c *config, a *app.App, failures *web.KeyFailureCounter, log *slog.Logger) (stop func(context.Context), err error) {
	s := c.submissionSettings
	if s.SubmissionListen == "" && s.SubmissionTLSListen == "" {
		return func(context.Context) {}, nil
	}
	tlsConfig, err := submissionTLS(c)
	if err != nil {
		return nil, err
	}
	cfg := smtpin.SubmissionConfig{Hostname: submissionName(c), TLSConfig: tlsConfig}
	if failures != nil { // a nil pointer in the interface would not read as "no limit"
		cfg.KeyFailures = failures
	}
	srv, err := smtpin.NewSubmission(cfg, a.Messaging.Submitter(), log)
	if err != nil {
		return nil, err
	}
	var listeners []net.Listener
	for _, l := range []struct {
		name, addr string
		serve      func(net.Listener) error
	}{
		{"submission smtp (STARTTLS)", s.SubmissionListen, srv.Serve},
		{"submission smtp (implicit TLS)", s.SubmissionTLSListen, srv.ServeTLS},
	} {
		if l.addr == "" {
			continue
		}
		ln, err := net.Listen("tcp", l.addr)
		if err != nil {
			for _, open := range listeners {
				open.Close()
			}
			return nil, fmt.Errorf("%s listen on %s: %w", l.name, l.addr, err)
		}
		listeners = append(listeners, ln)
		go func() {
			if err := l.serve(ln); err != nil {
				log.Error(l.name+" stopped", "err", err)
			}
		}()
		log.Info(l.name+" listening", "addr", ln.Addr().String())
	}
	return func(ctx context.Context) {
		if err := srv.Shutdown(ctx); err != nil {
			log.Warn("shutdown: submission sessions still open were cut", "err", err)
		}
	}, nil
}

// submissionTLS is the listeners' certificate, loaded once at start: the
// configured pair, else the self-signed one of the data directory that
// the inbound listener uses (made at first use).
func submissionTLS(c *config) (*tls.Config, error) {
	s := c.submissionSettings
	cfg, err := smtpin.LoadTLS(s.SubmissionTLSCert, s.SubmissionTLSKey,
		filepath.Join(c.DataDir, smtpin.SelfSignedFile), inboundName(c))
	if err != nil && s.SubmissionTLSCert != "" {
		// The operator's files: a setting to fix, said on one line.
		return nil, configError{fmt.Sprintf("HERALD_SUBMISSION_TLS_CERT=%q, HERALD_SUBMISSION_TLS_KEY=%q: %v",
			s.SubmissionTLSCert, s.SubmissionTLSKey, oneLine(err))}
	}
	return cfg, err
}

// submissionName is the listeners' greeting name: the EHLO name, else the
// machine's.
func submissionName(c *config) string {
	if c.Hostname != "" {
		return c.Hostname
	}
	name, _ := os.Hostname()
	return name
}

// oneLine is an error's text on one line, for the one-line refusals.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
