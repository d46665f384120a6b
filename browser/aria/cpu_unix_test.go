//go:build unix

package aria

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this test process has used, user and system:
// our side of a snapshot, whatever the browser and the machine's load do.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
