package proctree

import (
	"context"
	"sync"
	"time"
)

// Watcher samples a tree at a fixed interval and keeps the sample with the
// largest total.
type Watcher struct {
	mu      sync.Mutex
	peak    Sample
	samples int
	done    chan struct{}
}

// Watch samples the tree of root every interval until ctx ends or root is
// gone; Wait returns the peak.
func Watch(ctx context.Context, root int, interval time.Duration) *Watcher {
	w := &Watcher{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			s, err := Measure(root)
			if err != nil {
				return // root ended
			}
			w.mu.Lock()
			w.samples++
			if s.TotalKiB > w.peak.TotalKiB {
				w.peak = s
			}
			w.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// Wait waits for the sampling to end (ctx done or root gone) and returns
// the peak sample and how many samples were taken.
func (w *Watcher) Wait() (Sample, int) {
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.peak, w.samples
}
