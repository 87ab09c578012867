package campaigns

import (
	"context"
	"time"
)

// A fan-out signs on every core and can run far ahead of delivery. What
// it queues beyond what delivery takes soon only costs memory: each queued
// message waits in the handoff (or, once the handoff is full, is read back
// from email_bodies, a second cost). So before it builds a batch, a
// fan-out waits while the handoff already holds fanoutAheadBytes, about 300
// messages of a 27 KB newsletter (a batch and a half): enough that delivery,
// which takes about as long to send them as the fan-out takes to sign the
// next batch, does not run dry, little enough that a campaign's memory does
// not grow with its audience. (It was 12 MB; every megabyte held is two of
// heap, with the garbage collector's headroom.)
// The wait is bounded by fanoutPaceWait, so a delivery that stalls (a slow
// destination, a paused lane) slows the fan-out but never stops it.
const (
	fanoutAheadBytes = 8 << 20
	fanoutPaceWait   = time.Second
)

// paceFanout waits until the handoff holds at most fanoutAheadBytes, the
// context ends, or fanoutPaceWait has passed on the App's clock.
func (s *Service) paceFanout(ctx context.Context) {
	if s.handoff.Held() <= fanoutAheadBytes {
		return // the common case, without a timer
	}
	s.handoff.WaitBelow(ctx, fanoutAheadBytes, s.clock.Until(s.clock.Now().Add(fanoutPaceWait)))
}
