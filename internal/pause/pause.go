// Package pause waits for a while unless the context ends first: the one
// sleep of retries and polls that must stop when a run is cancelled.
package pause

import (
	"context"
	"time"
)

// For waits d, or until ctx is done, and returns ctx's error in that case.
// A d <= 0 returns at once, without looking at ctx: a step with no delay
// (typing with no delay between keys) is not cut short.
func For(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
