//go:build !unix

package app_test

import "time"

// processCPU is not measured here; the CPU metrics read zero.
func processCPU() time.Duration { return 0 }
