package browser

import (
	"context"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

func TestCloseRunningBeforeUnload(t *testing.T) {
	p := open(t, "/nav.html")
	ctx := context.Background()
	// No handler asks to stay: the page closes.
	if err := p.CloseRunningBeforeUnload(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for p.Err() == nil && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	wantType(t, p.Err(), ErrTargetClosed)
	if err := p.CloseRunningBeforeUnload(ctx); err != nil {
		t.Errorf("closing twice: %v", err)
	}
}

func TestClosedPage(t *testing.T) {
	p := open(t, "/buttons.html")
	if err := p.Close(bg); err != nil {
		t.Fatal(err)
	}
	for _, p2 := range shared.Pages() {
		if p2 == p {
			t.Errorf("a closed page is listed")
		}
	}
	_, err := p.Goto(bg, site.URL+"/nav.html", Load, 0)
	wantType(t, err, ErrTargetClosed, p.ID())
	wantType(t, loc(t, p, "button").Click(bg, ClickOptions{}), ErrTargetClosed)
	_, err = p.Evaluate(bg, "1", nil, 0)
	wantType(t, err, ErrTargetClosed)
	if err := p.Close(bg); err != nil {
		t.Errorf("closing twice: %v", err)
	}
	// A page closed behind the driver's back ends a wait at once.
	p = open(t, "/buttons.html")
	go func() {
		time.Sleep(100 * time.Millisecond)
		_, _ = proto.TargetCloseTarget{TargetID: p.rod.TargetID}.Call(shared.rod)
	}()
	start := time.Now()
	err = loc(t, p, "#nope").WaitFor(bg, stateVisible, 5*time.Second)
	wantType(t, err, ErrTargetClosed)
	if time.Since(start) > 3*time.Second {
		t.Errorf("the wait did not end when the page closed")
	}
}
