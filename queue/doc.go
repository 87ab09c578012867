// Package queue is Herald's durable job queue over the storage jobs table.
//
// It owns:
//   - the job kind table: each Kind names its handler, the Lane it runs in,
//     its Retry policy and its terminal outcome (GiveUp), and New checks the
//     table once, at construction;
//   - the Dispatcher, which claims due jobs with a lease in one statement,
//     runs them in lanes of bounded concurrency, retries them with backoff,
//     gives them up after their last attempt (or at once on a Permanent
//     error), and sleeps on the clock until the next job falls due, keeping
//     per lane a drain state so that an empty lane is not queried again
//     until something may have given it work; the write recording a job's
//     outcome claims the lane's next job for the same worker;
//   - running jobs (RunningJob): progress and checkpoints saved with the
//     handler's own rows, lease renewal, FinishIn;
//   - Enqueue, which adds a job inside the caller's write.
//
// The time it reads is a clock.Clock passed in (package clock), so that
// tests move time instead of sleeping.
//
// Every kind ends, after its last attempt, in a state someone can see in
// the API: its GiveUp outcome runs in the same write that marks the job
// failed. That holds also for a job whose handler panics or whose worker
// died: a claim finds a job whose lease ran out on its last attempt and
// gives it up instead of running it again.
//
// queue imports storage; storage does not import queue. app declares the
// table of Herald's kinds (app/job_kinds.go) and keeps their handlers.
package queue
