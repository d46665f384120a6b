package browser

import (
	"testing"
	"time"
)

func TestOverlayAndActionability(t *testing.T) {
	// The overlay never goes away; the timeout only needs room for one
	// whole attempt on a loaded machine, which is what names the overlay.
	p := open(t, "/overlay.html")
	err := loc(t, p, "#target").Click(bg, ClickOptions{Timeout: 3 * time.Second})
	wantType(t, err, ErrTimeout, "intercepts pointer events", `<div id="overlay" class="modal-backdrop">Loading...</div>`, "force")

	// force clicks at the point regardless (the overlay takes it here).
	if err := loc(t, p, "#target").Click(bg, ClickOptions{Force: true}); err != nil {
		t.Fatalf("force click: %v", err)
	}

	// The overlay goes away after 300ms; the click waits for that.
	p = open(t, "/overlay.html?hide=300")
	if err := loc(t, p, "#target").Click(bg, ClickOptions{}); err != nil {
		t.Fatalf("click after overlay: %v", err)
	}
	if got := text(t, p, "#target"); got != "done" {
		t.Errorf("target: %q", got)
	}

	// A moving button is clicked once it stops, where it stopped.
	p = open(t, "/overlay.html?none=1&move=1")
	if err := loc(t, p, "#mover").Click(bg, ClickOptions{}); err != nil {
		t.Fatalf("click moving: %v", err)
	}
	if got := text(t, p, "#mover"); got != "caught" {
		t.Errorf("mover: %q", got)
	}

	// Hover, bounding box and a click at a position.
	box, err := loc(t, p, "#target").BoundingBox(bg, 0)
	if err != nil || box == nil || box.Width < 10 || box.Height < 10 {
		t.Fatalf("bounding box: %+v %v", box, err)
	}
	if err := loc(t, p, "#target").Hover(bg, false, 0); err != nil {
		t.Fatalf("hover: %v", err)
	}
	if !eval[bool](t, p, "document.querySelector('#target').matches(':hover')") {
		t.Errorf("target not hovered")
	}
	if err := loc(t, p, "#target").Click(bg, ClickOptions{Position: &Point{X: 2, Y: 2}}); err != nil {
		t.Fatalf("click at position: %v", err)
	}
	// Waiting for an element that never comes names the selector.
	err = loc(t, p, "#nope").Click(bg, ClickOptions{Timeout: time.Second})
	wantType(t, err, ErrTimeout, "#nope", "no element matches")
}

// TestHitTargetOfButtonParts: a click on a button's label that has
// pointer-events: none lands on the button, which is the same control.
func TestHitTargetOfButtonParts(t *testing.T) {
	p := open(t, "/actionability.html")
	if err := loc(t, p, "text=Pointerless label").Click(bg, ClickOptions{Timeout: 3 * time.Second}); err != nil {
		t.Fatalf("click the label span: %v", err)
	}
	if got := text(t, p, "#out"); got != "pe clicked" {
		t.Errorf("out: %q", got)
	}
	if err := loc(t, p, `#link span`).Click(bg, ClickOptions{Timeout: 3 * time.Second}); err != nil {
		t.Fatalf("click inside a link: %v", err)
	}
	// A link that wraps over two lines in a rotated box: its first line box
	// is clicked, and the hit test maps that point through the link's rect.
	if err := loc(t, p, "#wrapped").Click(bg, ClickOptions{Timeout: 3 * time.Second}); err != nil {
		t.Fatalf("click a wrapped link: %v", err)
	}
	if got := text(t, p, "#out"); got != "wrapped clicked" {
		t.Errorf("out: %q", got)
	}
}

// TestDisabledButtonPartWaits: a span inside a disabled button is disabled
// too, so a click waits for the button instead of clicking the span.
func TestDisabledButtonPartWaits(t *testing.T) {
	p := open(t, "/actionability.html")
	err := loc(t, p, "#dis-span").Click(bg, ClickOptions{Timeout: 2 * time.Second})
	wantType(t, err, ErrTimeout, "disabled")
	if got := text(t, p, "#out"); got != "none" {
		t.Errorf("out after a refused click: %q", got)
	}
	enabled, err := loc(t, p, "#dis-span").Is(bg, "enabled")
	if err != nil || enabled {
		t.Errorf("span in a disabled button: enabled=%v, %v", enabled, err)
	}
	p = open(t, "/actionability.html?enable=300")
	if err := loc(t, p, "#dis-span").Click(bg, ClickOptions{Timeout: 5 * time.Second}); err != nil {
		t.Fatalf("click once enabled: %v", err)
	}
	if got := text(t, p, "#out"); got != "dis clicked" {
		t.Errorf("out: %q", got)
	}
}

// A box asked right after a script changed the page is the new layout's:
// Chromium's content quads alone were the last rendering's in three calls
// of four (the old height, or no box for an element just inserted).
func TestBoxAfterAScriptChangedThePage(t *testing.T) {
	p := testPage(t)
	for i := range 20 {
		call(t, p, JSCall{Source: `() => { document.body.innerHTML = '<div style="width: 100px; height: 100px">hello</div>'; }`})
		call(t, p, JSCall{Source: `() => { document.querySelector('div').style.height = '200px'; }`})
		b, err := loc(t, p, "div").BoundingBox(bg, 0)
		if err != nil {
			t.Fatal(err)
		}
		if b == nil || b.Height != 200 || b.Width != 100 {
			t.Fatalf("try %d: box %+v, want 100x200", i, b)
		}
	}
}
