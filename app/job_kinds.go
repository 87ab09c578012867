package app

import (
	"time"

	"github.com/heraldmail/herald/app/workflow"
	"github.com/heraldmail/herald/queue"
)

// Lanes: each is a pool of workers of its own, so that thousands of queued
// deliveries never hold up an import, and the other way round.
const (
	DefaultLane  = "default"  // imports, bulk edits, campaign fan-outs, upkeep: Options.Workers
	DeliveryLane = "delivery" // one job per email: DeliveryOptions.Workers
	WorkflowLane = "workflow" // the workflow engine: its batch jobs and webhook calls
)

// Job kinds. A kind's name is stored in its jobs' rows: never rename one.
const (
	JobDeliver = "email.deliver"
	// A campaign's email is its own delivery queue entry: no job row
	// (app/campaign_queue.go).
	JobDeliverCampaign = "email.deliver.campaign"
	JobCampaignSend    = "campaign.send"
	JobImportContacts  = "contacts.import"
	JobBulkContacts    = "contacts.bulk"
	JobCheckDomains    = "domains.check"
	JobSegments        = "segments.refresh"
	JobCleanup         = "maintenance.cleanup"
	JobAccounts        = "accounts.upkeep"

	// The workflow engine's kinds (app/workflow): enrolment from its
	// inbox, the step run for executions due now, the timer for
	// executions due later (DELAY resumes, WAIT_FOR_EVENT timeouts), and
	// one job per WEBHOOK step execution with its retries.
	JobWorkflowEnrol   = workflow.JobEnrol
	JobWorkflowStep    = workflow.JobStep
	JobWorkflowTimer   = workflow.JobTimer
	JobWorkflowWebhook = workflow.JobWebhook
)

func (a *App) jobLanes(workers int) []queue.Lane {
	return []queue.Lane{
		{Name: DefaultLane, Workers: workers},
		{Name: DeliveryLane, Workers: a.delivery.Workers},
		{Name: WorkflowLane, Workers: 4},
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
		// The same for a campaign's email, kept in its own row instead
		// of a job; claimed after JobDeliver's jobs in the lane.
		Name: JobDeliverCampaign, Lane: DeliveryLane, Run: a.runCampaignDelivery, Store: campaignQueue{a},
		Retry: deliveryRetry(a.delivery), Lease: 10 * time.Minute,
		GiveUp: queue.Then(a.giveUpCampaignDelivery),
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
	}, {
		// The engine's batch jobs work on rows (the inbox, due
		// executions) that stay for the next job if one gives up, and
		// each execution they move ends COMPLETED, EXITED or FAILED: a
		// step's own failure fails its execution, it is not retried.
		Name: JobWorkflowEnrol, Lane: WorkflowLane, Run: a.workflows.RunEnrol,
		Retry:  queue.Retry{MaxAttempts: 10},
		GiveUp: queue.Then(a.workflows.GiveUpJob),
	}, {
		Name: JobWorkflowStep, Lane: WorkflowLane, Run: a.workflows.RunDue,
		Retry:  queue.Retry{MaxAttempts: 10},
		GiveUp: queue.Then(a.workflows.GiveUpJob),
	}, {
		Name: JobWorkflowTimer, Lane: WorkflowLane, Run: a.workflows.RunDue,
		Retry:  queue.Retry{MaxAttempts: 10},
		GiveUp: queue.Then(a.workflows.GiveUpJob),
	}, {
		// A WEBHOOK step: retried after HERALD_WEBHOOK_RETRY_BASE ×1, 2,
		// 4, 8; given up, the step and its execution are FAILED naming
		// the last status.
		Name: JobWorkflowWebhook, Lane: WorkflowLane, Run: a.workflows.RunWebhook,
		Retry: a.workflows.WebhookRetry(), Lease: time.Minute,
		GiveUp: queue.Then(a.workflows.GiveUpWebhook),
	}}
}
