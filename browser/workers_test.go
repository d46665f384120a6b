package browser

import (
	"testing"
	"time"
)

// A page's dedicated worker: announced, evaluated in (by value and by
// handle), its console messages the page's with the worker named, and
// ended when terminated; a handle on its objects is then closed.
func TestDedicatedWorker(t *testing.T) {
	p := open(t, "/buttons.html")
	ch := events(t, p)
	if _, err := p.Call(bg, JSCall{Source: `() => { window.w = new Worker(URL.createObjectURL(new Blob(
		["self.answer = () => 6 * 7; console.log('worker up', 1)"], {type: 'application/javascript'}))); }`}, 0); err != nil {
		t.Fatal(err)
	}
	var worker *WorkerEvent
	var logged *ConsoleEvent
	deadline := time.After(10 * time.Second)
	for worker == nil || logged == nil {
		select {
		case e := <-ch:
			switch e := e.(type) {
			case *WorkerEvent:
				worker = e
			case *ConsoleEvent:
				if e.Worker != "" {
					logged = e
				}
			}
		case <-deadline:
			t.Fatalf("no worker event (%v) or worker console message (%v)", worker, logged)
		}
	}
	if !(worker.URL != "" && logged.Worker == worker.Worker && logged.Text == "worker up 1") {
		t.Errorf("worker %+v, console %+v", worker, logged)
	}
	if ws := p.Workers(); len(ws) != 1 || ws[0].ID != worker.Worker {
		t.Errorf("Workers() = %v", ws)
	}
	res, err := p.Call(bg, JSCall{Source: "() => self.answer()", Worker: worker.Worker}, 0)
	if err != nil || string(res.Value) != "42" {
		t.Fatalf("evaluate in the worker: %s, %v", res.Value, err)
	}
	h, err := p.Call(bg, JSCall{Source: "() => self", Worker: worker.Worker, ReturnHandle: true}, 0)
	if err != nil || h.Handle == "" {
		t.Fatalf("a handle in the worker: %+v, %v", h, err)
	}
	// A call on the handle runs in the worker, without naming it.
	res, err = p.Call(bg, JSCall{Source: "(g) => typeof g.answer", Element: h.Handle}, 0)
	if err != nil || string(res.Value) != `"function"` {
		t.Fatalf("a call on the worker's handle: %s, %v", res.Value, err)
	}
	if _, err := p.Call(bg, JSCall{Source: "() => window.w.terminate()"}, 0); err != nil {
		t.Fatal(err)
	}
	for closed := false; !closed; {
		select {
		case e := <-ch:
			if c, ok := e.(*WorkerClosedEvent); ok && c.Worker == worker.Worker {
				closed = true
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no worker_closed event after terminate()")
		}
	}
	_, err = p.Call(bg, JSCall{Source: "(g) => g.answer()", Element: h.Handle}, 0)
	if e := AsError(err); e == nil || e.Type != ErrTargetClosed {
		t.Errorf("a call on an ended worker's handle: %v", err)
	}
	if len(p.Workers()) != 0 {
		t.Errorf("Workers() after terminate: %v", p.Workers())
	}
}
