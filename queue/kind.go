package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/heraldmail/herald/storage"
)

// Lane is a pool of workers for some job kinds, so that thousands of
// queued deliveries never hold up an import, and the other way round.
type Lane struct {
	Name    string
	Workers int // jobs of the lane running at once; default 4
}

// Kind is one row of the job kind table: what runs a job of the kind,
// where, how often it is tried and what it leaves behind when it stops.
type Kind struct {
	Name string
	Lane string // one of Options.Lanes

	// Run does the work. Its result is stored as JSON for status queries.
	// It must be safe to run again after a crash: a job whose worker died
	// is claimed again when its lease runs out.
	Run func(ctx context.Context, job *RunningJob) (result any, err error)

	// Claimed, if set, runs inside the write that claims the job, so that
	// the work is marked started in the same transaction. It returns false
	// when the job has nothing left to do: it is then completed in that
	// write and Run is not called.
	Claimed func(ctx context.Context, tx *storage.Tx, job storage.Job) (run bool, err error)

	// Store keeps the kind's jobs; nil: the jobs table (see Store for
	// what a kind with a store of its own may not be).
	Store Store

	Retry   Retry
	Lease   time.Duration // default 2m; RunningJob.Progress renews it
	KeepFor time.Duration // how long a completed job stays readable; 0 deletes it at once
	Every   time.Duration // periodic: run again this long after each run

	// GiveUp is the kind's terminal outcome: what someone sees in the API
	// once a job of the kind stops retrying. Required.
	GiveUp Outcome
}

// GiveUpFunc moves the entity a job works on to a visible terminal state.
// It runs inside the write that marks the job failed, so the two commit
// together; cause is the last attempt's error.
type GiveUpFunc func(ctx context.Context, tx *storage.Tx, job storage.Job, cause error) error

// Outcome is what a job leaves behind after its last attempt. Build one
// with Reschedule, KeepFailedJob or Then; the zero Outcome is refused.
type Outcome struct {
	what outcomeKind
	hook GiveUpFunc
}

type outcomeKind int

const (
	outcomeNone outcomeKind = iota
	outcomeReschedule
	outcomeKeepJob
	outcomeHook
)

// Reschedule is the outcome of a periodic kind: a job that gave up is
// queued again for its next period, like one that succeeded.
func Reschedule() Outcome { return Outcome{what: outcomeReschedule} }

// KeepFailedJob is the outcome of a kind whose job is itself what the API
// shows (a status endpoint): it stays readable as failed, with the cause as
// its reason, for the kind's KeepFor.
func KeepFailedJob() Outcome { return Outcome{what: outcomeKeepJob} }

// Then is the outcome of a kind that works on an entity of its own (an
// email, a campaign): fn moves it to a terminal state the API shows, in the
// write that marks the job failed.
func Then(fn GiveUpFunc) Outcome { return Outcome{what: outcomeHook, hook: fn} }

// String says what the outcome does, for logs and test messages.
func (o Outcome) String() string {
	switch o.what {
	case outcomeReschedule:
		return "rescheduled"
	case outcomeKeepJob:
		return "kept failed"
	case outcomeHook:
		return "give-up hook"
	}
	return "none"
}

// Declared reports whether the outcome was built by one of the
// constructors.
func (o Outcome) Declared() bool { return o.what != outcomeNone }

// check reports what is wrong with one row of the table.
func (k Kind) check(lanes map[string]bool) error {
	switch {
	case k.Name == "":
		return errors.New("a kind has no name")
	case k.Run == nil:
		return fmt.Errorf("kind %q has no Run", k.Name)
	case !lanes[k.Lane]:
		return fmt.Errorf("kind %q runs in lane %q, which is not declared", k.Name, k.Lane)
	case k.Retry.MaxAttempts < 0 || k.Lease < 0 || k.KeepFor < 0 || k.Every < 0:
		return fmt.Errorf("kind %q has a negative setting", k.Name)
	}
	if err := k.checkStore(); err != nil {
		return err
	}
	return k.checkOutcome()
}

// checkStore refuses a kind kept in a store of its own that would need the
// jobs table's: a periodic job rescheduled, a finished job kept.
func (k Kind) checkStore() error {
	if k.Store == nil {
		return nil
	}
	if k.Every > 0 || k.KeepFor > 0 || k.GiveUp.what != outcomeHook {
		return fmt.Errorf("kind %q keeps its jobs in a store of its own: it cannot be periodic, keep finished jobs or give up other than with Then", k.Name)
	}
	return nil
}

func (k Kind) checkOutcome() error {
	periodic := k.Every > 0
	switch o := k.GiveUp; {
	case !o.Declared():
		return fmt.Errorf("kind %q declares no terminal outcome (GiveUp)", k.Name)
	case periodic != (o.what == outcomeReschedule):
		return fmt.Errorf("kind %q: a periodic kind, and only one, gives up with Reschedule", k.Name)
	case o.what == outcomeKeepJob && k.KeepFor <= 0:
		return fmt.Errorf("kind %q keeps its failed job but has no KeepFor", k.Name)
	case o.what == outcomeHook && o.hook == nil:
		return fmt.Errorf("kind %q gives up with a nil hook", k.Name)
	}
	return nil
}

// withDefaults fills the settings the table leaves out.
func (k Kind) withDefaults() Kind {
	k.Retry = k.Retry.withDefaults()
	if k.Lease <= 0 {
		k.Lease = 2 * time.Minute
	}
	if k.Store == nil {
		k.Store = jobsTable{}
	}
	return k
}
