package storage

import "runtime"

// yieldWhenBusy lets the writes that are about to arrive join the next
// transaction. When the last transaction held more than one write, writers
// are arriving faster than the writer commits: the goroutines that will
// queue the next writes are running or runnable, and on a machine whose
// cores are busy they wait for a processor that the writer would otherwise
// take at once, to commit a transaction of one or two writes. Yielding the
// processor once lets them queue first, so that one BEGIN, one COMMIT and
// one set of WAL frames (the pages the writes share, the table's last page
// above all) serve more writes. Under light load (one write at a time) the
// writer never yields, so an idle server answers a lone write at once.
//
// A timed wait was tried and was worse: a timer costs more than the
// transactions it saves, and it makes every batch wait whether or not more
// writes come (docs/performance.md, "The tracked event").
func yieldWhenBusy(lastBatch int) {
	if lastBatch > 1 {
		runtime.Gosched()
	}
}
