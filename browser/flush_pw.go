package browser

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Event order. Chromium sends what a call caused (a console message, an
// exposed function called from a focus handler) before the call's answer,
// but the page's events reach clients through the event pump, while the
// answer goes straight back: a client could see the answer first, and
// Playwright's sync API promises the listeners ran by then. FlushEvents is
// the barrier: a binding of wright's world, called now, comes back
// through the same pump after everything Chromium sent before it.

const flushBinding = "__wright_flush"

// flushLimit bounds the barrier: a page held by a dialog or a busy script
// does not answer it, and the call it follows must not wait for that.
const flushLimit = 250 * time.Millisecond

type flusher struct {
	once  sync.Once
	added error
	mu    sync.Mutex
	seq   int
	wait  map[string]chan struct{}
}

// FlushEvents returns once the page's events sent before the call have
// been delivered to subscribers (or after a short limit).
func (p *Page) FlushEvents(ctx context.Context) {
	if p.closedErr() != nil || !p.b.hasSubscribers() {
		return
	}
	o := p.begin(ctx, flushLimit)
	defer o.end()
	f := &p.flush
	f.once.Do(func() {
		f.added = callCDP(o.rodPage(), proto.RuntimeAddBinding{Name: flushBinding, ExecutionContextName: worldName})
	})
	if f.added != nil {
		return
	}
	ec, err := p.main(o)
	if err != nil {
		return
	}
	f.mu.Lock()
	f.seq++
	id := strconv.Itoa(f.seq)
	done := make(chan struct{})
	if f.wait == nil {
		f.wait = map[string]chan struct{}{}
	}
	f.wait[id] = done
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.wait, id)
		f.mu.Unlock()
	}()
	if _, err := (proto.RuntimeEvaluate{Expression: flushBinding + "('" + id + "')", ContextID: ec.id}).Call(o.rodPage()); err != nil {
		return
	}
	select {
	case <-done:
	case <-o.ctx.Done():
	}
}

// flushed is the pump's side of the barrier.
func (p *Page) flushed(msg *rod.Message) {
	var e proto.RuntimeBindingCalled
	if !msg.Load(&e) || e.Name != flushBinding {
		return
	}
	f := &p.flush
	f.mu.Lock()
	if ch, ok := f.wait[e.Payload]; ok {
		close(ch)
		delete(f.wait, e.Payload)
	}
	f.mu.Unlock()
}
