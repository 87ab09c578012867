package queue_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

func noop(context.Context, *queue.RunningJob) (any, error) { return nil, nil }

func hook(context.Context, *storage.Tx, storage.Job, error) error { return nil }

// queue.New refuses a table with a row it cannot run or that would leave
// a job without a visible end.
func TestNewRefusesABadTable(t *testing.T) {
	t.Parallel()
	lanes := []queue.Lane{{Name: "default"}}
	good := queue.Kind{Name: "k", Lane: "default", Run: noop, KeepFor: time.Hour, GiveUp: queue.KeepFailedJob()}
	for _, tc := range []struct {
		name  string
		lanes []queue.Lane
		kinds []queue.Kind
		want  string
	}{
		{"unknown lane", lanes, []queue.Kind{with(good, func(k *queue.Kind) { k.Lane = "fast" })}, `lane "fast", which is not declared`},
		{"no lane", lanes, []queue.Kind{with(good, func(k *queue.Kind) { k.Lane = "" })}, `lane "", which is not declared`},
		{"duplicate kind", lanes, []queue.Kind{good, good}, `kind "k" is declared twice`},
		{"duplicate lane", append(lanes, queue.Lane{Name: "default"}), []queue.Kind{good}, `lane "default" is declared twice`},
		{"unnamed lane", []queue.Lane{{}}, nil, "a lane has no name"},
		{"unnamed kind", lanes, []queue.Kind{with(good, func(k *queue.Kind) { k.Name = "" })}, "a kind has no name"},
		{"no handler", lanes, []queue.Kind{with(good, func(k *queue.Kind) { k.Run = nil })}, `kind "k" has no Run`},
		{"no outcome", lanes, []queue.Kind{with(good, func(k *queue.Kind) { k.GiveUp = queue.Outcome{} })}, "declares no terminal outcome"},
		{"nil hook", lanes, []queue.Kind{with(good, func(k *queue.Kind) { k.GiveUp = queue.Then(nil) })}, "nil hook"},
		{"kept without KeepFor", lanes, []queue.Kind{with(good, func(k *queue.Kind) { k.KeepFor = 0 })}, "has no KeepFor"},
		{"periodic not rescheduled", lanes, []queue.Kind{with(good, func(k *queue.Kind) { k.Every = time.Hour })}, "periodic kind"},
		{"rescheduled not periodic", lanes, []queue.Kind{with(good, func(k *queue.Kind) { k.GiveUp = queue.Reschedule() })}, "periodic kind"},
		{"negative setting", lanes, []queue.Kind{with(good, func(k *queue.Kind) { k.Lease = -time.Second })}, "negative"},
	} {
		_, err := queue.New(queue.Options{Lanes: tc.lanes, Kinds: tc.kinds})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want %q", tc.name, err, tc.want)
		}
	}
}

func with(k queue.Kind, change func(*queue.Kind)) queue.Kind {
	change(&k)
	return k
}

// A good table comes back from Kinds in its order, with defaults filled.
func TestKindsAreTheTableWithDefaults(t *testing.T) {
	t.Parallel()
	d, err := queue.New(queue.Options{Lanes: []queue.Lane{{Name: "a"}, {Name: "b", Workers: 2}}, Kinds: []queue.Kind{
		{Name: "hooked", Lane: "b", Run: noop, GiveUp: queue.Then(hook)},
		{Name: "tick", Lane: "a", Run: noop, Every: time.Minute, GiveUp: queue.Reschedule()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	kinds := d.Kinds()
	if len(kinds) != 2 || kinds[0].Name != "hooked" || kinds[1].Name != "tick" {
		t.Fatalf("kinds %+v", kinds)
	}
	k := kinds[0]
	if k.Retry.MaxAttempts != 5 || k.Retry.Backoff(1) != 10*time.Second || k.Retry.Backoff(20) != time.Hour ||
		k.Lease != 2*time.Minute || k.GiveUp.String() != "give-up hook" {
		t.Fatalf("defaults %+v", k)
	}
}
