package browser

import (
	"context"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// idleQuiet is how long no request may be in flight for the network to
// count as idle (Chrome's and Playwright's figure).
const idleQuiet = 500 * time.Millisecond

// idleWatch counts the page's requests in flight in all its frames from the
// moment it starts. Chrome's networkIdle lifecycle event looks at one
// frame's own requests; a navigation waiting until "networkidle" must also
// wait for the frames inside the page (a child frame's script that never
// arrives keeps the page busy).
type idleWatch struct {
	mu       sync.Mutex
	inflight map[proto.NetworkRequestID]bool
	since    time.Time // of the last change
	changed  chan struct{}
	cancel   context.CancelFunc
	done     chan struct{}
}

// watchIdle starts counting (when on) for the op; close ends it.
func (p *Page) watchIdle(o *op, on bool) *idleWatch {
	w := &idleWatch{inflight: map[proto.NetworkRequestID]bool{}, since: time.Now(), changed: make(chan struct{}), done: make(chan struct{})}
	if !on {
		close(w.done)
		return w
	}
	ctx, cancel := context.WithCancel(o.ctx)
	w.cancel = cancel
	wait := p.rod.Context(ctx).EachEvent(func(e *proto.NetworkRequestWillBeSent) {
		w.set(e.RequestID, true)
	}, func(e *proto.NetworkLoadingFinished) {
		w.set(e.RequestID, false)
	}, func(e *proto.NetworkLoadingFailed) {
		w.set(e.RequestID, false)
	})
	go func() {
		defer close(w.done)
		wait() // ends with ctx
	}()
	return w
}

func (w *idleWatch) set(id proto.NetworkRequestID, busy bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if busy {
		w.inflight[id] = true
	} else if w.inflight[id] {
		delete(w.inflight, id)
	} else {
		return // a request from before the watch
	}
	w.since = time.Now()
	close(w.changed)
	w.changed = make(chan struct{})
}

// wait blocks until no request has been in flight for idleQuiet, or the op ends.
func (w *idleWatch) wait(o *op) error {
	if w.cancel == nil {
		return nil
	}
	for {
		w.mu.Lock()
		busy, left, ch := len(w.inflight) > 0, idleQuiet-time.Since(w.since), w.changed
		w.mu.Unlock()
		if !busy && left <= 0 {
			return nil
		}
		if busy {
			left = time.Second
		}
		if err := o.waitChange(ch, left); err != nil {
			return err
		}
	}
}

func (w *idleWatch) close() {
	if w.cancel != nil {
		w.cancel()
	}
	<-w.done
}

// name is the load state as Playwright spells it ("load" when unset).
func (w WaitUntil) name() string {
	if w == "" {
		return string(Load)
	}
	return string(w)
}
