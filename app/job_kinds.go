package app

import (
	"time"

	"github.com/heraldmail/herald/queue"
)

// Lanes: each is a pool of workers of its own, so that thousands of queued
// deliveries never hold up an import, and the other way round.
const (
	DefaultLane  = "default"  // imports, bulk edits, campaign fan-outs, upkeep: Options.Workers
	DeliveryLane = "delivery" // one job per email: DeliveryOptions.Workers
)

// Job kinds. A kind's name is stored in its jobs' rows: never rename one.
const (
	JobDeliver        = "email.deliver"
	JobCampaignSend   = "campaign.send"
	JobImportContacts = "contacts.import"
	JobBulkContacts   = "contacts.bulk"
	JobCheckDomains   = "domains.check"
	JobSegments       = "segments.refresh"
	JobCleanup        = "maintenance.cleanup"
	JobAccounts       = "accounts.upkeep"
)

func (a *App) jobLanes(workers int) []queue.Lane {
	return []queue.Lane{
		{Name: DefaultLane, Workers: workers},
		{Name: DeliveryLane, Workers: a.delivery.Workers},
	}
}

// jobKinds is the table of Herald's background work: for each kind, its
// handler, lane, retry policy, and what someone sees in the API once it
// stops retrying (GiveUp). The handlers live with their features.
func (a *App) jobKinds() []queue.Kind {
	return []queue.Kind{{
		// One attempt to hand an email to its MX. Temporary failures
		// retry until the give-up time (48 h by default), when the handler
		// marks the email FAILED itself; an attempt limit a little beyond
		// it ends any other failure: the email is FAILED with the cause.
		Name: JobDeliver, Lane: DeliveryLane, Run: a.runDelivery, Claimed: a.startDelivery,
		Retry: deliveryRetry(a.delivery), Lease: 10 * time.Minute,
		GiveUp: queue.Then(a.giveUpDelivery),
	}, {
		// A campaign's fan-out. Given up, the send stops as a cancel
		// would: CANCELLED with what was queued (DRAFT if nothing was).
		Name: JobCampaignSend, Lane: DefaultLane, Run: a.runCampaignSend,
		Retry:  queue.Retry{MaxAttempts: 10},
		GiveUp: queue.Then(a.giveUpCampaignSend),
	}, {
		// The job is what GET /contacts/import/{jobId} shows: failed, with
		// failedReason.
		Name: JobImportContacts, Lane: DefaultLane, Run: a.runImport,
		Retry: queue.Retry{MaxAttempts: 3}, KeepFor: FinishedJobRetention,
		GiveUp: queue.KeepFailedJob(),
	}, {
		// Likewise through GET /contacts/bulk/{jobId}.
		Name: JobBulkContacts, Lane: DefaultLane, Run: a.runBulk,
		Retry: queue.Retry{MaxAttempts: 3}, KeepFor: FinishedJobRetention,
		GiveUp: queue.KeepFailedJob(),
	}, {
		// Periodic: a failed round waits for the next one.
		Name: JobCheckDomains, Lane: DefaultLane, Run: a.runDomainChecks,
		Retry: queue.Retry{MaxAttempts: 1}, Every: DomainCheckInterval,
		GiveUp: queue.Reschedule(),
	}, {
		Name: JobSegments, Lane: DefaultLane, Run: a.runSegments,
		Retry: queue.Retry{MaxAttempts: 1}, Every: SegmentRefreshEvery, Lease: 10 * time.Minute,
		GiveUp: queue.Reschedule(),
	}, {
		Name: JobCleanup, Lane: DefaultLane, Run: a.runCleanup,
		Every:  time.Hour,
		GiveUp: queue.Reschedule(),
	}, {
		// Periodic: ended sessions and tokens go; with auto-disable on,
		// projects whose reputation is critical are disabled.
		Name: JobAccounts, Lane: DefaultLane, Run: a.runAccountUpkeep,
		Retry: queue.Retry{MaxAttempts: 1}, Every: AccountUpkeepEvery,
		GiveUp: queue.Reschedule(),
	}}
}
