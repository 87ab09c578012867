// Package campaigns owns campaigns: drafts and their checks, schedules,
// the fan-out that renders, signs and queues one email per recipient in
// batches (paced by the delivery handoff), the campaign email queue the
// delivery lane claims from, cancelling, stats and test sends.
//
// It imports accounts, audience, senders and messaging.
package campaigns
