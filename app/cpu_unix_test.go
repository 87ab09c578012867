//go:build unix

package app_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the test process has used, user and system.
// Per message it is a steadier figure than a rate on a shared machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
