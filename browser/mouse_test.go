package browser

import (
	"reflect"
	"testing"
)

func TestDragTo(t *testing.T) {
	p := open(t, "/files.html")
	// HTML5 drag and drop: dragstart, then a drop with the drag's data.
	if err := loc(t, p, "#src").DragTo(bg, loc(t, p, "#dst"), DragOptions{Steps: 3}); err != nil {
		t.Fatal(err)
	}
	log := eval[[]string](t, p, "window.log")
	if !reflect.DeepEqual(log, []string{"dragstart", "drop:payload"}) {
		t.Fatalf("drag log %v", log)
	}
	if !eval[bool](t, p, "document.getElementById('dst').contains(document.getElementById('src'))") {
		t.Fatal("the drop handler did not run")
	}
	// Nothing draggable: plain mouse down and up at the positions given.
	eval[int](t, p, "(window.log = [], 0)")
	pad := loc(t, p, "#pad")
	if err := pad.DragTo(bg, pad, DragOptions{SourcePosition: &Point{X: 10, Y: 12}, TargetPosition: &Point{X: 50, Y: 60}}); err != nil {
		t.Fatal(err)
	}
	if log := eval[[]string](t, p, "window.log"); !reflect.DeepEqual(log, []string{"mousedown@10,12", "mouseup@50,60"}) {
		t.Fatalf("mouse log %v", log)
	}
	// The mouse API drags too: down, move, up.
	eval[int](t, p, "(document.body.prepend(document.getElementById('src')), window.log = [], 0)")
	src := eval[map[string]float64](t, p, "document.getElementById('src').getBoundingClientRect().toJSON()")
	dst := eval[map[string]float64](t, p, "document.getElementById('dst').getBoundingClientRect().toJSON()")
	steps := []func() error{
		func() error { return p.Mouse().Move(bg, src["x"]+10, src["y"]+10) },
		func() error { return p.Mouse().Button(bg, "left", 1, true) },
		func() error { return p.Mouse().MoveSteps(bg, dst["x"]+20, dst["y"]+20, 2) },
		func() error { return p.Mouse().Button(bg, "left", 1, false) },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			t.Fatal(err)
		}
	}
	if log := eval[[]string](t, p, "window.log"); !reflect.DeepEqual(log, []string{"dragstart", "drop:payload"}) {
		t.Fatalf("mouse drag log %v", log)
	}
}

func TestClickPositionAndSteps(t *testing.T) {
	p := testPage(t)
	call(t, p, JSCall{Source: `() => { document.body.style.margin = '0';
		document.body.innerHTML = '<button id=b style="border: 8px solid; width: 2000px; height: 2000px">big</button>';
		window.clicks = []; window.moves = 0;
		document.addEventListener('mousemove', () => moves++);
		document.querySelector('#b').addEventListener('click', e => clicks.push([e.offsetX, e.offsetY, e.shiftKey])); }`})
	b := loc(t, p, "#b")
	// Relative to the padding box, and scrolled to even far from the centre.
	if err := b.Click(bg, ClickOptions{Position: &Point{X: 1900, Y: 1910}}); err != nil {
		t.Fatal(err)
	}
	if err := p.Keyboard().Down(bg, "Shift"); err != nil {
		t.Fatal(err)
	}
	// Modifiers given (even none) replace the held ones for the click.
	if err := b.Click(bg, ClickOptions{Position: &Point{X: 20, Y: 10}, Modifiers: []string{}, Steps: 4}); err != nil {
		t.Fatal(err)
	}
	if err := b.Click(bg, ClickOptions{Position: &Point{X: 20, Y: 10}}); err != nil {
		t.Fatal(err)
	}
	if err := p.Keyboard().Up(bg, "Shift"); err != nil {
		t.Fatal(err)
	}
	got := eval[[][]any](t, p, "clicks")
	want := [][]any{{1900.0, 1910.0, false}, {20.0, 10.0, false}, {20.0, 10.0, true}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("clicks %v, want %v", got, want)
	}
	if n := eval[int](t, p, "moves"); n < 5 {
		t.Fatalf("%d mouse moves: steps were not taken", n)
	}
}
