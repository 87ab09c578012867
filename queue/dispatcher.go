package queue

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/storage"
)

// Options are a Dispatcher's dependencies and its table of lanes and kinds.
type Options struct {
	DB    *storage.DB
	Clock clock.Clock  // default SystemClock
	Log   *slog.Logger // default slog.Default
	Lanes []Lane
	Kinds []Kind
}

// Dispatcher runs queued jobs with bounded concurrency per lane.
type Dispatcher struct {
	db      *storage.DB
	clock   clock.Clock
	log     *slog.Logger
	kinds   map[string]*kind
	table   []Kind // the kinds in table order, with their defaults
	lanes   []*lane
	wake    chan struct{}
	running sync.WaitGroup
	alive   atomic.Bool // Run is running (readiness)
}

// kind is a row of the table with the lane it runs in and its source there.
type kind struct {
	Kind
	lane *lane
	src  *source
}

// store is where the kind's jobs are kept (the jobs table for a kind
// found in no table).
func (k *kind) store() Store {
	if k.Store == nil {
		return jobsTable{}
	}
	return k.Store
}

// New checks the table and returns a dispatcher for it. An undeclared or
// repeated lane or kind, or a kind without a terminal outcome, is an error.
func New(o Options) (_ *Dispatcher, err error) {
	defer wrap(&err, "New")
	if o.Clock == nil {
		o.Clock = clock.System{}
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	d := &Dispatcher{db: o.DB, clock: o.Clock, log: o.Log, kinds: map[string]*kind{}, wake: make(chan struct{}, 1)}
	lanes, err := d.addLanes(o.Lanes)
	if err != nil {
		return nil, err
	}
	for _, k := range o.Kinds {
		if err := k.check(lanes); err != nil {
			return nil, err
		}
		if d.kinds[k.Name] != nil {
			return nil, fmt.Errorf("kind %q is declared twice", k.Name)
		}
		k = k.withDefaults()
		l := d.lane(k.Lane)
		src := l.sourceFor(k.Store)
		src.kinds = append(src.kinds, k.Name)
		l.maxLease = max(l.maxLease, k.Lease)
		d.kinds[k.Name] = &kind{Kind: k, lane: l, src: src}
		d.table = append(d.table, k)
	}
	return d, nil
}

func (d *Dispatcher) addLanes(lanes []Lane) (map[string]bool, error) {
	names := map[string]bool{}
	for _, l := range lanes {
		switch {
		case l.Name == "":
			return nil, errors.New("a lane has no name")
		case names[l.Name]:
			return nil, fmt.Errorf("lane %q is declared twice", l.Name)
		}
		names[l.Name] = true
		if l.Workers <= 0 {
			l.Workers = 4
		}
		d.lanes = append(d.lanes, &lane{name: l.Name, slots: make(chan struct{}, l.Workers)})
	}
	return names, nil
}

func (d *Dispatcher) lane(name string) *lane {
	for _, l := range d.lanes {
		if l.name == name {
			return l
		}
	}
	return nil
}

// stores are the distinct stores of the table's kinds, each with the names
// of its kinds, in table order.
func (d *Dispatcher) stores() ([]Store, map[Store][]string) {
	var order []Store
	kinds := map[Store][]string{}
	for _, k := range d.table {
		if _, seen := kinds[k.Store]; !seen {
			order = append(order, k.Store)
		}
		kinds[k.Store] = append(kinds[k.Store], k.Name)
	}
	return order, kinds
}

// Kinds returns the table, in its order, with the defaults filled in.
func (d *Dispatcher) Kinds() []Kind { return append([]Kind(nil), d.table...) }

// idleWait bounds how long the dispatcher sleeps without looking, so that
// jobs added by another process (the CLI) are found too.
const idleWait = 30 * time.Second

// Run claims and runs due jobs until ctx ends, then waits for the running
// ones, whose contexts are cancelled with ctx.
func (d *Dispatcher) Run(ctx context.Context) {
	d.alive.Store(true)
	defer d.alive.Store(false)
	defer d.running.Wait()
	// One timer is pending at a time: a wake-up that comes before it keeps
	// it when the next wake is no earlier (waking early only makes the loop
	// look again). A timer per turn would be one per finished job, which a
	// fake clock that never moves keeps for ever.
	var timer <-chan time.Time
	var timerAt time.Time
	for {
		d.claimAndStart(ctx)
		if next := d.nextWake(ctx); timer == nil || next.Before(timerAt) {
			timer, timerAt = d.clock.Until(next), next
		}
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-timer:
			timer = nil
			d.undrain() // jobs may have fallen due
		}
	}
}

// Wake makes the dispatcher look for due jobs now.
func (d *Dispatcher) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *Dispatcher) undrain() {
	for _, l := range d.lanes {
		for _, s := range l.sources {
			s.drain.changed()
		}
	}
}

// nextWake is when a drained source may have work again: the first time one
// of its jobs falls due or a lease runs out after its drain. It is idleWait
// from now at the latest. Sources that are not drained need no timer: their
// lanes are full, and a finishing job wakes the dispatcher. Only the
// drained sources' kinds are asked about: a busy source's due jobs would
// wake the loop at once, for nothing, and undrain every source (which a
// finishing job's claim would then query in vain).
func (d *Dispatcher) nextWake(ctx context.Context) time.Time {
	wake := d.clock.Now().Add(idleWait)
	for _, w := range d.drainedByStore() {
		next, ok, err := w.store.NextTime(ctx, d.db.Reader(), w.since, w.kinds)
		if err == nil && ok && next.Before(wake) {
			wake = next
		}
	}
	return wake
}

// drainedStore is what nextWake asks a store: the kinds of its drained
// sources, from the earliest of their drains.
type drainedStore struct {
	store Store
	kinds []string
	since time.Time
}

func (d *Dispatcher) drainedByStore() []drainedStore {
	var out []drainedStore
	for _, l := range d.lanes {
		for _, s := range l.sources {
			if !s.drain.drained() {
				continue
			}
			i := 0
			for i < len(out) && out[i].store != s.store {
				i++
			}
			if i == len(out) {
				out = append(out, drainedStore{store: s.store, since: s.drain.at})
			}
			out[i].kinds = append(out[i].kinds, s.kinds...)
			if s.drain.at.Before(out[i].since) {
				out[i].since = s.drain.at
			}
		}
	}
	return out
}

// storeOf is where the jobs of a kind are kept.
func (d *Dispatcher) storeOf(kindName string) Store {
	if k, ok := d.kinds[kindName]; ok {
		return k.store()
	}
	return jobsTable{}
}

// NextRun is when the earliest queued job of a kind is due, from the
// kind's store.
func (d *Dispatcher) NextRun(ctx context.Context, kindName string) (_ time.Time, _ bool, err error) {
	defer wrap(&err, "Dispatcher.NextRun")
	k, ok := d.kinds[kindName]
	if !ok {
		return time.Time{}, false, errors.New("no job kind " + kindName)
	}
	return k.store().NextRun(ctx, d.db.Reader(), kindName)
}
