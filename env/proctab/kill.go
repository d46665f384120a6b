//go:build linux || darwin

package proctab

import (
	"crypto/rand"
	"encoding/hex"
	"syscall"
	"time"
)

// KillAll sends SIGKILL to every process find returns until it returns
// none, for about a second at most: a process may fork while we kill.
func KillAll(find func() []int) {
	for round := 0; round < 50; round++ {
		pids := find()
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// NewTag is a random hex string of n bytes: an environment tag no other
// run shares.
func NewTag(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
