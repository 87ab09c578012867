package app

import (
	"context"
	"time"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/audience"
	"github.com/heraldmail/herald/app/campaigns"
	"github.com/heraldmail/herald/app/messaging"
	"github.com/heraldmail/herald/app/senders"
	"github.com/heraldmail/herald/app/workflow"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// Lanes: each is a pool of workers of its own, so that thousands of queued
// deliveries never hold up an import, and the other way round.
const (
	DefaultLane  = "default"  // imports, bulk edits, campaign fan-outs, upkeep: Options.Workers
	DeliveryLane = "delivery" // one job per email: DeliveryOptions.Workers
	WorkflowLane = "workflow" // the workflow engine: its batch jobs and webhook calls
)

// JobCleanup is the periodic cleanup (maintenance.go). A kind's name is
// stored in its jobs' rows: never rename one; each domain names its own.
const JobCleanup = "maintenance.cleanup"

func jobLanes(workers, deliveryWorkers int) []queue.Lane {
	return []queue.Lane{
		{Name: DefaultLane, Workers: workers},
		{Name: DeliveryLane, Workers: deliveryWorkers},
		{Name: WorkflowLane, Workers: 4},
	}
}

// jobKinds is the table of Herald's background work: for each kind, its
// handler, lane, retry policy, and what someone sees in the API once it
// stops retrying (GiveUp). The handlers live with their features; the
// table reaches them through a when a job runs, since it is built before
// the services, which queue their work on the dispatcher it configures.
func (a *App) jobKinds(o Options, handoff *messaging.Handoff) []queue.Kind {
	return []queue.Kind{{
		// One attempt to hand an email to its MX. Temporary failures
		// retry until the give-up time (48 h by default), when the handler
		// marks the email FAILED itself; an attempt limit a little beyond
		// it ends any other failure: the email is FAILED with the cause.
		Name: messaging.JobDeliver, Lane: DeliveryLane,
		Run: func(ctx context.Context, j *queue.RunningJob) (any, error) { return a.Messaging.RunDelivery(ctx, j) },
		Claimed: func(ctx context.Context, tx *storage.Tx, j storage.Job) (bool, error) {
			return a.Messaging.StartDelivery(ctx, tx, j)
		},
		Retry: messaging.DeliveryRetry(o.Delivery), Lease: 10 * time.Minute,
		GiveUp: queue.Then(func(ctx context.Context, tx *storage.Tx, j storage.Job, cause error) error {
			return a.Messaging.GiveUpDelivery(ctx, tx, j, cause)
		}),
	}, {
		// The same for a campaign's email, kept in its own row instead
		// of a job; claimed after JobDeliver's jobs in the lane.
		Name: messaging.JobDeliverCampaign, Lane: DeliveryLane, Store: campaigns.NewQueue(handoff),
		Run: func(ctx context.Context, j *queue.RunningJob) (any, error) {
			return a.Messaging.RunCampaignDelivery(ctx, j)
		},
		Retry: messaging.DeliveryRetry(o.Delivery), Lease: 10 * time.Minute,
		GiveUp: queue.Then(func(ctx context.Context, tx *storage.Tx, j storage.Job, cause error) error {
			return a.Messaging.GiveUpCampaignDelivery(ctx, tx, j, cause)
		}),
	}, {
		// A campaign's fan-out. Given up, the send stops as a cancel
		// would: CANCELLED with what was queued (DRAFT if nothing was).
		Name: campaigns.JobCampaignSend, Lane: DefaultLane,
		Run: func(ctx context.Context, j *queue.RunningJob) (any, error) {
			return a.Campaigns.RunCampaignSend(ctx, j)
		},
		Retry: queue.Retry{MaxAttempts: 10},
		GiveUp: queue.Then(func(ctx context.Context, tx *storage.Tx, j storage.Job, cause error) error {
			return a.Campaigns.GiveUpCampaignSend(ctx, tx, j, cause)
		}),
	}, {
		// The job is what GET /contacts/import/{jobId} shows: failed, with
		// failedReason.
		Name: audience.JobImportContacts, Lane: DefaultLane,
		Run:   func(ctx context.Context, j *queue.RunningJob) (any, error) { return a.Audience.RunImport(ctx, j) },
		Retry: queue.Retry{MaxAttempts: 3}, KeepFor: FinishedJobRetention,
		GiveUp: queue.KeepFailedJob(),
	}, {
		// Likewise through GET /contacts/bulk/{jobId}.
		Name: audience.JobBulkContacts, Lane: DefaultLane,
		Run:   func(ctx context.Context, j *queue.RunningJob) (any, error) { return a.Audience.RunBulk(ctx, j) },
		Retry: queue.Retry{MaxAttempts: 3}, KeepFor: FinishedJobRetention,
		GiveUp: queue.KeepFailedJob(),
	}, {
		// Periodic: a failed round waits for the next one.
		Name: senders.JobCheckDomains, Lane: DefaultLane,
		Run:   func(ctx context.Context, j *queue.RunningJob) (any, error) { return a.Senders.RunDomainChecks(ctx, j) },
		Retry: queue.Retry{MaxAttempts: 1}, Every: senders.DomainCheckInterval,
		GiveUp: queue.Reschedule(),
	}, {
		Name: audience.JobSegments, Lane: DefaultLane,
		Run:   func(ctx context.Context, j *queue.RunningJob) (any, error) { return a.Audience.RunSegments(ctx, j) },
		Retry: queue.Retry{MaxAttempts: 1}, Every: audience.SegmentRefreshEvery, Lease: 10 * time.Minute,
		GiveUp: queue.Reschedule(),
	}, {
		Name: JobCleanup, Lane: DefaultLane, Run: a.runCleanup,
		Every:  time.Hour,
		GiveUp: queue.Reschedule(),
	}, {
		// Periodic: ended sessions and tokens go; with auto-disable on,
		// projects whose reputation is critical are disabled.
		Name: accounts.JobAccounts, Lane: DefaultLane,
		Run: func(ctx context.Context, j *queue.RunningJob) (any, error) {
			return a.Accounts.RunAccountUpkeep(ctx, j)
		},
		Retry: queue.Retry{MaxAttempts: 1}, Every: accounts.AccountUpkeepEvery,
		GiveUp: queue.Reschedule(),
	}, {
		// The engine's batch jobs work on rows (the inbox, due
		// executions) that stay for the next job if one gives up, and
		// each execution they move ends COMPLETED, EXITED or FAILED: a
		// step's own failure fails its execution, it is not retried.
		Name: workflow.JobEnrol, Lane: WorkflowLane,
		Run:    func(ctx context.Context, j *queue.RunningJob) (any, error) { return a.Workflows.RunEnrol(ctx, j) },
		Retry:  queue.Retry{MaxAttempts: 10},
		GiveUp: a.workflowGiveUp(),
	}, {
		Name: workflow.JobStep, Lane: WorkflowLane,
		Run:    func(ctx context.Context, j *queue.RunningJob) (any, error) { return a.Workflows.RunDue(ctx, j) },
		Retry:  queue.Retry{MaxAttempts: 10},
		GiveUp: a.workflowGiveUp(),
	}, {
		Name: workflow.JobTimer, Lane: WorkflowLane,
		Run:    func(ctx context.Context, j *queue.RunningJob) (any, error) { return a.Workflows.RunDue(ctx, j) },
		Retry:  queue.Retry{MaxAttempts: 10},
		GiveUp: a.workflowGiveUp(),
	}, {
		// A WEBHOOK step: retried after HERALD_WEBHOOK_RETRY_BASE ×1, 2,
		// 4, 8; given up, the step and its execution are FAILED naming
		// the last status.
		Name: workflow.JobWebhook, Lane: WorkflowLane,
		Run:   func(ctx context.Context, j *queue.RunningJob) (any, error) { return a.Workflows.RunWebhook(ctx, j) },
		Retry: workflow.WebhookRetry(o.Webhooks), Lease: time.Minute,
		GiveUp: queue.Then(func(ctx context.Context, tx *storage.Tx, j storage.Job, cause error) error {
			return a.Workflows.GiveUpWebhook(ctx, tx, j, cause)
		}),
	}}
}

func (a *App) workflowGiveUp() queue.Outcome {
	return queue.Then(func(ctx context.Context, tx *storage.Tx, j storage.Job, cause error) error {
		return a.Workflows.GiveUpJob(ctx, tx, j, cause)
	})
}
