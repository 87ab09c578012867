package web

import (
	"net"

	"golang.org/x/net/netutil"
)

// LimitListener serves at most n connections at once (HERALD_MAX_CONNECTIONS):
// Accept waits while n are open, so further clients wait in the kernel's
// listen backlog (or are refused by it when that is full) instead of each
// costing a goroutine and its buffers. n <= 0 leaves ln unbounded.
func LimitListener(ln net.Listener, n int) net.Listener {
	if n <= 0 {
		return ln
	}
	return netutil.LimitListener(ln, n)
}
