package browser

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tests of drag and drop, file inputs, file choosers, downloads and the
// driver bugs Playwright's tests found (files.html is the fixture).

// events collects the shared browser's events of one page until the test
// ends.
func events(t *testing.T, p *Page) <-chan Event {
	t.Helper()
	ch := make(chan Event, 256)
	cancel := shared.Subscribe(func(e Event) {
		if page, opener := eventPage(e); page == p.ID() || opener == p.ID() {
			select {
			case ch <- e:
			default:
			}
		}
	}, false)
	t.Cleanup(cancel)
	return ch
}

// waitEvent waits for the first event of a kind (its type's name) that
// keep accepts.
func waitEvent(t *testing.T, ch <-chan Event, kind string, keep func(Event) bool) Event {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case e := <-ch:
			if eventKind(e) == kind && (keep == nil || keep(e)) {
				return e
			}
		case <-deadline:
			t.Fatalf("no %s", kind)
		}
	}
}

func TestGotoFragmentUpdatesURL(t *testing.T) {
	p := open(t, "/nav.html")
	// The URL used to lag behind a same-document goto about half the time.
	for i := 0; i < 12; i++ {
		want := site.URL + "/nav.html#part" + string(rune('a'+i))
		res, err := p.Goto(bg, want, Load, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.URL(); got != want || res.URL != want {
			t.Fatalf("after goto %s: URL() = %s, result %s", want, got, res.URL)
		}
	}
}

func TestGotoWithoutScheme(t *testing.T) {
	for in, want := range map[string]string{
		"localhost:8000/x":   "http://localhost:8000/x",
		"localhost":          "http://localhost",
		"127.0.0.1/a?b":      "http://127.0.0.1/a?b",
		"[::1]:3000":         "http://[::1]:3000",
		"https://localhost/": "https://localhost/",
		"localhostile.com":   "localhostile.com",
		"tel:123":            "tel:123",
		"about:blank":        "about:blank",
	} {
		if got := completeURL(in); got != want {
			t.Errorf("completeURL(%q) = %q, want %q", in, got, want)
		}
	}
	p := testPage(t)
	bare := strings.TrimPrefix(other, "http://") + "/page2.html"
	if _, err := p.Goto(bg, bare, Load, 0); err != nil {
		t.Fatalf("goto %s: %v", bare, err)
	}
	if got := p.URL(); got != other+"/page2.html" {
		t.Fatalf("URL after goto %s: %s", bare, got)
	}
}

func TestFillNumberRefusesText(t *testing.T) {
	p := open(t, "/files.html")
	err := loc(t, p, "#num").Fill(bg, "abc", false, 2*time.Second)
	wantType(t, err, ErrBrowser, "Cannot type text into input[type=number]")
	if err := loc(t, p, "#num").Fill(bg, "-10e5", false, 0); err != nil {
		t.Fatal(err)
	}
	if v := eval[string](t, p, "document.getElementById('num').value"); v != "-10e5" {
		t.Fatalf("value %q", v)
	}
}

func TestSelectOptionSeveralAndNone(t *testing.T) {
	p := open(t, "/files.html")
	sel := func(css string, values ...string) []string {
		t.Helper()
		got, err := loc(t, p, css).SelectOption(bg, SelectOptions{Values: values}, false, 2*time.Second)
		if err != nil {
			t.Fatalf("select %v in %s: %v", values, css, err)
		}
		return got
	}
	// Without multiple, the first option (in document order) any value names.
	if got := sel("#single", "zzz", "c", "b"); !reflect.DeepEqual(got, []string{"b"}) {
		t.Fatalf("single select of several: %v", got)
	}
	if got := sel("#multi", "c", "Apple"); !reflect.DeepEqual(got, []string{"a", "c"}) {
		t.Fatalf("multiple select: %v", got)
	}
	// Nothing to select deselects everything, in both kinds.
	if got := sel("#multi"); len(got) != 0 {
		t.Fatalf("multiple select of none: %v", got)
	}
	if got := sel("#single"); len(got) != 0 {
		t.Fatalf("single select of none: %v", got)
	}
	if n := eval[int](t, p, "document.querySelectorAll('option:checked').length"); n != 0 {
		t.Fatalf("%d options still selected", n)
	}
	// A multiple select waits for every value to have an option.
	_, err := loc(t, p, "#multi").SelectOption(bg, SelectOptions{Values: []string{"a", "nope"}}, false, 2*time.Second)
	wantType(t, err, ErrTimeout, "nope")
}

func TestPopupClosedAtOnce(t *testing.T) {
	p := open(t, "/files.html")
	ch := events(t, p)
	if _, err := p.Evaluate(bg, "(() => { const w = window.open(location.href); w.close(); return 1 })()", nil, 0); err != nil {
		t.Fatal(err)
	}
	e := waitEvent(t, ch, "PageOpenedEvent", func(e Event) bool { return e.(*PageOpenedEvent).Opener == p.ID() }).(*PageOpenedEvent)
	popup := shared.Page(e.Page)
	if popup == nil || popup.Opener() != p.ID() {
		t.Fatalf("popup %+v", e)
	}
}

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

func TestSetInputFiles(t *testing.T) {
	p := open(t, "/files.html")
	one, many := loc(t, p, "#one"), loc(t, p, "#many")
	if err := one.SetInputFiles(bg, InputFiles{Paths: []string{"testdata/files/hello.txt"}}, 0); err != nil {
		t.Fatal(err)
	}
	got := eval[[]any](t, p, "(() => { const f = document.getElementById('one').files[0]; return [f.name, f.size, log.join(' ')] })()")
	if !reflect.DeepEqual(got, []any{"hello.txt", float64(18), "one:input one:change"}) {
		t.Fatalf("file from a path: %v", got)
	}
	payloads := []FilePayload{{Name: "a.txt", MimeType: "text/plain", Buffer: "QUFB"}, {Name: "b.json", MimeType: "application/json", Buffer: "e30="}}
	if err := many.SetInputFiles(bg, InputFiles{Payloads: payloads}, 0); err != nil {
		t.Fatal(err)
	}
	names := eval[[]string](t, p, "Promise.all([...document.getElementById('many').files].map(async f => f.name + '|' + f.type + '|' + await f.text()))")
	if !reflect.DeepEqual(names, []string{"a.txt|text/plain|AAA", "b.json|application/json|{}"}) {
		t.Fatalf("files from payloads: %v", names)
	}
	// A label stands for its input; no files clears it.
	if err := loc(t, p, "#lab").SetInputFiles(bg, InputFiles{}, 0); err != nil {
		t.Fatal(err)
	}
	if n := eval[int](t, p, "document.getElementById('one').files.length"); n != 0 {
		t.Fatalf("%d files after clearing", n)
	}
	err := one.SetInputFiles(bg, InputFiles{Payloads: payloads}, 0)
	wantType(t, err, ErrBrowser, "Non-multiple file input can only accept single file")
	err = loc(t, p, "#num").SetInputFiles(bg, InputFiles{Payloads: payloads[:1]}, 0)
	wantType(t, err, ErrBrowser, "type=file")
	err = one.SetInputFiles(bg, InputFiles{Paths: []string{"testdata/files/missing.txt"}}, 0)
	wantType(t, err, ErrInvalidParams, "missing.txt")
}

func TestFileChooser(t *testing.T) {
	p := open(t, "/files.html")
	ch := events(t, p)
	if err := p.InterceptFileChooser(bg, true); err != nil {
		t.Fatal(err)
	}
	if err := loc(t, p, "#many").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	e := waitEvent(t, ch, "FileChooserEvent", nil).(*FileChooserEvent)
	if !e.Multiple {
		t.Fatalf("chooser %+v", e)
	}
	h := loc(t, p, "handle="+e.Handle)
	if err := h.SetInputFiles(bg, InputFiles{Paths: []string{"testdata/files/hello.txt"}}, 0); err != nil {
		t.Fatal(err)
	}
	if n := eval[int](t, p, "document.getElementById('many').files.length"); n != 1 {
		t.Fatalf("%d files chosen", n)
	}
}

func TestDownload(t *testing.T) {
	p := open(t, "/files.html")
	if err := shared.AcceptDownloads(bg, "", true); err != nil {
		t.Fatal(err)
	}
	ch := events(t, p)
	if err := loc(t, p, "#dl").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	e := waitEvent(t, ch, "DownloadEvent", nil).(*DownloadEvent)
	if e.SuggestedFilename != "greeting.txt" || !strings.HasSuffix(e.URL, "/files/hello.txt") {
		t.Fatalf("download event %+v", e)
	}
	d := shared.Download(e.Download)
	st, err := d.Wait(bg, 10*time.Second)
	if err != nil || st.Failure != "" {
		t.Fatalf("wait: %v %+v", err, st)
	}
	if b, err := os.ReadFile(st.Path); err != nil || string(b) != "hello from a file\n" {
		t.Fatalf("downloaded %q, %v", b, err)
	}
	to := filepath.Join(t.TempDir(), "sub", "copy.txt")
	if err := d.SaveAs(bg, to); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(to); err != nil || string(b) != "hello from a file\n" {
		t.Fatalf("saved %q, %v", b, err)
	}
	if err := d.Delete(bg); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.Path); !os.IsNotExist(err) {
		t.Fatalf("the download is still there: %v", err)
	}
}

func TestPlaywrightKeys(t *testing.T) {
	p := testPage(t)
	call(t, p, JSCall{Source: `() => { document.body.innerHTML = '<textarea id=t></textarea>'; window.keys = [];
		document.addEventListener('keydown', e => keys.push([e.key, e.code, e.location, e.repeat, e.shiftKey]));
		document.querySelector('#t').focus(); }`})
	steps := []func() error{
		func() error { return p.Keyboard().Press(bg, "ControlRight") },
		func() error { return p.Keyboard().Press(bg, "NumpadEnter") },
		func() error { return p.Keyboard().Press(bg, "Shift+Digit3") },
		func() error { return p.Keyboard().Down(bg, "a") },
		func() error { return p.Keyboard().Down(bg, "a") },
		func() error { return p.Keyboard().Up(bg, "a") },
		func() error { return p.Keyboard().Down(bg, "Shift") },
		func() error { return p.Keyboard().Type(bg, "~", 0) },
		func() error { return p.Keyboard().Up(bg, "Shift") },
	}
	for _, s := range steps {
		if err := s(); err != nil {
			t.Fatal(err)
		}
	}
	got := eval[[][]any](t, p, "keys")
	want := [][]any{
		{"Control", "ControlRight", 2.0, false, false},
		{"Enter", "NumpadEnter", 3.0, false, false},
		{"Shift", "ShiftLeft", 1.0, false, true},
		{"#", "Digit3", 0.0, false, true},
		{"a", "KeyA", 0.0, false, false},
		{"a", "KeyA", 0.0, true, false}, // a second down of a held key repeats
		{"Shift", "ShiftLeft", 1.0, false, true},
		{"~", "Backquote", 0.0, false, true}, // typed with Shift held
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("keydown events\n got %v\nwant %v", got, want)
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

func TestFlushEvents(t *testing.T) {
	p := testPage(t)
	if err := p.ExposeBinding(bg, "noted"); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := 0
	cancel := shared.Subscribe(func(e Event) {
		if b, ok := e.(*BindingEvent); ok && b.Page == p.ID() {
			mu.Lock()
			seen++
			mu.Unlock()
		}
	}, false)
	defer cancel()
	call(t, p, JSCall{Source: `() => { document.body.innerHTML = '<input id=a><input id=b>';
		document.querySelector('#b').addEventListener('focus', () => noted('focus')); }`})
	for i := 1; i <= 5; i++ {
		if err := loc(t, p, "#a").Focus(bg, 0); err != nil {
			t.Fatal(err)
		}
		if err := loc(t, p, "#b").Focus(bg, 0); err != nil {
			t.Fatal(err)
		}
		// The binding's event was sent before Focus returned; the barrier
		// makes sure the pump has delivered it.
		p.FlushEvents(bg)
		mu.Lock()
		n := seen
		mu.Unlock()
		if n != i {
			t.Fatalf("after %d focus events the subscriber saw %d", i, n)
		}
	}
}
