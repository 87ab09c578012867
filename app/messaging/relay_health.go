package messaging

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/smtpout"
	"github.com/heraldmail/herald/storage"
)

// relayProbeEvery is how often, while the relay refuses Herald's
// credentials, one delivery tries it again. The others wait in the queue
// without an attempt, so a wrong password costs no message its retries,
// and the relay sees one login a minute instead of one per queued email.
const relayProbeEvery = time.Minute

// relayHealth remembers that the smarthost refused Herald's credentials:
// a configuration error, not the recipient's, reported once at ERROR and
// by /readyz until a login works again.
type relayHealth struct {
	mu        sync.Mutex
	failing   bool
	reason    string
	lastProbe time.Time
}

// mayTry reports whether a delivery may use the relay now: always while it
// works, once per relayProbeEvery while it refuses the credentials.
func (h *relayHealth) mayTry(now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.failing || now.Sub(h.lastProbe) >= relayProbeEvery {
		h.lastProbe = now
		return true
	}
	return false
}

// failed records a refusal and reports whether it is the first.
func (h *relayHealth) failed(now time.Time, reason string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	first := !h.failing
	h.failing, h.reason, h.lastProbe = true, reason, now
	return first
}

// worked records a login that worked and reports whether it had failed.
func (h *relayHealth) worked() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	was := h.failing
	h.failing, h.reason = false, ""
	return was
}

// working reports whether the relay takes the credentials (as far as the
// last login knows).
func (h *relayHealth) working() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.failing
}

// problem is what /readyz shows; "" when the relay takes the credentials.
func (h *relayHealth) Problem() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.failing {
		return ""
	}
	return "the SMTP relay refuses Herald's credentials (" + h.reason + "): fix HERALD_SMTP_RELAY_USERNAME / HERALD_SMTP_RELAY_PASSWORD and restart; deliveries wait until then"
}

// errRelayRefusesLogin postpones deliveries while the relay refuses the
// credentials.
var errRelayRefusesLogin = fmt.Errorf("waiting: the SMTP relay refuses Herald's credentials")

// relayGate is run before an attempt: while the relay refuses the
// credentials, the attempt is handed back without being counted.
func (s *Service) relayGate(ctx context.Context, e storage.Email, selfQueued bool) error {
	if s.relay.mayTry(s.clock.Now()) {
		return nil
	}
	return s.postponeDelivery(ctx, e, selfQueued)
}

// relayVerdict is run after an attempt: a refused login is logged once at
// ERROR and postpones the delivery uncounted; a working one clears it.
func (s *Service) relayVerdict(ctx context.Context, e storage.Email, r smtpout.Result, selfQueued bool) error {
	if !r.RelayAuth {
		if s.relay.worked() {
			s.log.Info("the SMTP relay accepts Herald's credentials again: waiting deliveries resume", "relay", r.MXHost)
			s.resumeWaitingDeliveries(ctx)
		}
		return nil
	}
	if s.relay.failed(s.clock.Now(), fmt.Sprintf("%d %s %s", r.Code, r.EnhancedCode, r.Message)) {
		s.log.Error("the SMTP relay refuses Herald's credentials: deliveries wait, without using their retries, until HERALD_SMTP_RELAY_USERNAME / HERALD_SMTP_RELAY_PASSWORD are fixed",
			"relay", r.MXHost, "code", r.Code, "enhanced", r.EnhancedCode, "reply", r.Message)
	}
	return s.postponeDelivery(ctx, e, selfQueued)
}

// postponeDelivery undoes the attempt the claim counted on the email and
// hands the job back to the queue, due after relayProbeEvery, uncounted.
// An email that is its own queue entry is handed back, attempt undone, by
// the queue's own postponement.
func (s *Service) postponeDelivery(ctx context.Context, e storage.Email, selfQueued bool) error {
	if !selfQueued {
		err := s.db.Write(context.WithoutCancel(ctx), func(tx *storage.Tx) error {
			return tx.UndoAttempt(ctx, e.ID, s.now())
		})
		if err != nil {
			return err
		}
	}
	// A delivery that another one's working login overtook (it was gated
	// while the relay still refused, and is written back after the resume)
	// is due at once instead of a probe period later.
	return queue.PostponeUntil(relayProbeEvery, errRelayRefusesLogin, s.relay.working)
}

// resumeWaitingDeliveries makes the deliveries postponed for the relay due
// now, instead of at their next probe time.
func (s *Service) resumeWaitingDeliveries(ctx context.Context) {
	err := s.db.Write(context.WithoutCancel(ctx), func(tx *storage.Tx) error {
		for _, kind := range []string{JobDeliver, JobDeliverCampaign} {
			if err := s.jobs.ResumePostponed(ctx, tx, kind, errRelayRefusesLogin.Error(), relayProbeEvery); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.log.Error("resume the deliveries that waited for the relay", "err", err)
	}
}
