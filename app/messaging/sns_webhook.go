package messaging

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/sns"
)

// Fetcher GETs a URL on AWS: SNS signing certificates and subscription
// confirmations. Tests give their own; the default is HTTPFetcher.
type Fetcher interface {
	Fetch(ctx context.Context, url string) ([]byte, error)
}

// HTTPFetcher fetches over HTTPS with a timeout and no redirects: the URL
// was checked, where a redirect would lead was not.
type HTTPFetcher struct{ Client *http.Client }

// NewHTTPFetcher is the default Fetcher.
func NewHTTPFetcher() HTTPFetcher {
	return HTTPFetcher{Client: &http.Client{Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// maxFetchBytes bounds a fetched body; a certificate is about 2 KB.
const maxFetchBytes = 64 << 10

// Fetch GETs url and returns its body.
func (f HTTPFetcher) Fetch(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := f.Client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, maxFetchBytes))
}

// snsCerts fetches signing certificates once per URL. SNS names each
// certificate by a URL of its own, so an entry never goes stale.
type snsCerts struct {
	fetch Fetcher
	mu    sync.Mutex
	byURL map[string]*x509.Certificate
}

func newSNSCerts(f Fetcher) *snsCerts {
	if f == nil {
		f = NewHTTPFetcher()
	}
	return &snsCerts{fetch: f, byURL: map[string]*x509.Certificate{}}
}

func (c *snsCerts) get(ctx context.Context, url string, now time.Time) (*x509.Certificate, error) {
	c.mu.Lock()
	cert := c.byURL[url]
	c.mu.Unlock()
	if cert == nil {
		body, err := c.fetch.Fetch(ctx, url)
		if err != nil {
			return nil, fmt.Errorf("fetch SNS signing certificate: %w", err)
		}
		if cert, err = sns.ParseCertificate(body); err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.byURL[url] = cert
		c.mu.Unlock()
	}
	if now.Before(cert.NotBefore) || now.After(cert.NotAfter) {
		return nil, fmt.Errorf("%w: signing certificate expired or not yet valid", sns.ErrUntrusted)
	}
	return cert, nil
}

// HandleSNS handles one message Amazon SNS posted to /webhooks/sns: it
// checks the signature, confirms a subscription, and applies an SES
// notification. A message about an email Herald does not know is
// accepted and ignored, so that SNS does not retry it.
func (s *Service) HandleSNS(ctx context.Context, body []byte) error {
	m, err := sns.Parse(body)
	if err != nil {
		return apierr.BadRequest("%s", err.Error())
	}
	if err := s.verifySNS(ctx, m); err != nil {
		return err
	}
	switch m.Type {
	case sns.TypeSubscriptionConfirmation:
		return s.confirmSNS(ctx, m)
	case sns.TypeNotification:
		return s.applySES(ctx, m.Message)
	}
	s.log.Info("sns message ignored", "type", m.Type, "topic", m.TopicArn)
	return nil
}

func snsForbidden() error {
	return &apierr.Error{Kind: apierr.KindForbidden, Code: "FORBIDDEN", Message: "The SNS message signature is not valid"}
}

// verifySNS checks the message against its certificate. A certificate
// that cannot be fetched is an internal error, so SNS retries; one from
// anywhere but SNS, or a bad signature, is refused.
func (s *Service) verifySNS(ctx context.Context, m *sns.Message) error {
	if err := sns.CheckCertURL(m.SigningCertURL); err != nil {
		s.log.Warn("sns message refused", "err", err)
		return snsForbidden()
	}
	cert, err := s.snsCerts.get(ctx, m.SigningCertURL, s.now())
	if errors.Is(err, sns.ErrUntrusted) {
		s.log.Warn("sns message refused", "err", err)
		return snsForbidden()
	}
	if err != nil {
		return err
	}
	if err := m.Verify(cert); err != nil {
		s.log.Warn("sns message refused", "topic", m.TopicArn, "err", err)
		return snsForbidden()
	}
	return nil
}

// confirmSNS subscribes the endpoint by visiting the SubscribeURL, only
// when it is an https URL on AWS.
func (s *Service) confirmSNS(ctx context.Context, m *sns.Message) error {
	if err := sns.CheckSubscribeURL(m.SubscribeURL); err != nil {
		return apierr.BadRequest("%s", err.Error())
	}
	if _, err := s.snsCerts.fetch.Fetch(ctx, m.SubscribeURL); err != nil {
		return fmt.Errorf("confirm SNS subscription to %s: %w", m.TopicArn, err)
	}
	s.log.Info("sns subscription confirmed", "topic", m.TopicArn)
	return nil
}
