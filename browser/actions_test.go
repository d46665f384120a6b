package browser

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestForm(t *testing.T) {
	p := open(t, "/form.html")
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	must("fill name", loc(t, p, "label=Full name").Fill(bg, "Ada Lovelace", false, 0))
	must("fill email", loc(t, p, "#email").Fill(bg, "ada@example.com", false, 0))
	vals, err := loc(t, p, "#country").SelectOption(bg, SelectOptions{Labels: []string{"Japan"}}, false, 0)
	must("select by label", err)
	if strings.Join(vals, ",") != "jp" {
		t.Errorf("select by label: values %v", vals)
	}
	vals, err = loc(t, p, "#country").SelectOption(bg, SelectOptions{Values: []string{"de"}}, false, 0)
	must("select by value", err)
	if strings.Join(vals, ",") != "de" {
		t.Errorf("select by value: values %v", vals)
	}
	// A value that is really a label still finds its option.
	vals, err = loc(t, p, "#country").SelectOption(bg, SelectOptions{Values: []string{"France"}}, false, 0)
	must("select by value falling back to label", err)
	if strings.Join(vals, ",") != "fr" {
		t.Errorf("select by label as value: values %v", vals)
	}
	vals, err = loc(t, p, "#tags").SelectOption(bg, SelectOptions{Indexes: []int{0, 2}}, false, 0)
	must("select by index", err)
	if strings.Join(vals, ",") != "a,c" {
		t.Errorf("select by index: values %v", vals)
	}
	_, err = loc(t, p, "#country").SelectOption(bg, SelectOptions{Values: []string{"xx"}}, false, 2*time.Second)
	wantType(t, err, ErrTimeout, `no option with value "xx"`, `"fr"`)
	// Without multiple, the first option any of several names is selected (Playwright's rule).
	vals, err = loc(t, p, "#country").SelectOption(bg, SelectOptions{Indexes: []int{2, 1}}, false, 0)
	must("select one of several", err)
	if strings.Join(vals, ",") != "fr" {
		t.Errorf("select one of several: values %v", vals)
	}
	_, err = loc(t, p, "#name").SelectOption(bg, SelectOptions{Values: []string{"x"}}, false, 0)
	wantType(t, err, ErrBrowser, "<select>")

	must("check terms", loc(t, p, "label=I accept the terms").SetChecked(bg, true, false, 0))
	must("check terms again", loc(t, p, "#terms").SetChecked(bg, true, false, 0))
	must("uncheck newsletter", loc(t, p, "role=checkbox[name=Newsletter]").SetChecked(bg, false, false, 0))
	must("check radio", loc(t, p, "role=radio[name=Pro]").SetChecked(bg, true, false, 0))
	wantType(t, loc(t, p, "role=radio[name=Pro]").SetChecked(bg, false, false, 0), ErrBrowser, "radio")
	must("check ARIA checkbox", loc(t, p, "role=checkbox[name='Fancy option']").SetChecked(bg, true, false, 0))
	wantType(t, loc(t, p, "#name").SetChecked(bg, true, false, 0), ErrBrowser, "Not a checkbox")
	checked, err := loc(t, p, "#fancy").Is(bg, "checked")
	if err != nil || !checked {
		t.Errorf("is_checked on ARIA checkbox: %v %v", checked, err)
	}

	must("fill date", loc(t, p, "label=Birthday").Fill(bg, "2024-02-29", false, 0))
	wantType(t, loc(t, p, "#birthday").Fill(bg, "29/02/2024", false, 0), ErrBrowser, "YYYY-MM-DD")
	must("fill textarea", loc(t, p, "#bio").Fill(bg, "line one\nline two", false, 0))
	must("fill contenteditable", loc(t, p, "label=Notes").Fill(bg, "new notes", false, 0))
	wantType(t, loc(t, p, "#terms").Fill(bg, "x", false, 0), ErrBrowser, "check()")
	wantType(t, loc(t, p, "h1").Fill(bg, "x", false, 0), ErrBrowser, "cannot fill", "Element is not an <input>")
	err = loc(t, p, "#ro").Fill(bg, "x", false, 2*time.Second)
	wantType(t, err, ErrTimeout, "editable", "readonly")

	// The disabled button turns enabled after 300ms; the click waits for it.
	must("click later", loc(t, p, "#later").Click(bg, ClickOptions{}))
	if got := text(t, p, "#later"); got != "Clicked" {
		t.Errorf("later button: %q", got)
	}
	err = loc(t, p, "#never").Click(bg, ClickOptions{Timeout: 2 * time.Second})
	wantType(t, err, ErrTimeout, "disabled", "#never")

	must("submit", loc(t, p, "role=button[name=Submit]").Click(bg, ClickOptions{}))
	var got map[string]any
	if err := json.Unmarshal([]byte(text(t, p, "#out")), &got); err != nil {
		t.Fatalf("form output: %v", err)
	}
	want := map[string]any{
		"name": "Ada Lovelace", "email": "ada@example.com", "country": "fr", "tags": []any{"a", "c"},
		"terms": true, "plan": "pro", "birthday": "2024-02-29", "bio": "line one\nline two",
		"notes": "new notes", "fancy": "true",
	}
	for k, v := range want {
		if jsonOf(got[k]) != jsonOf(v) {
			t.Errorf("form field %s = %v, want %v", k, got[k], v)
		}
	}
	events := text(t, p, "#events")
	for _, e := range []string{"name:input", "name:change", "country:change", "bio:change", "birthday:input", "birthday:change"} {
		if !strings.Contains(events, e) {
			t.Errorf("event %s not fired; events: %s", e, events)
		}
	}
	v, err := loc(t, p, "#name").InputValue(bg, 0)
	if err != nil || v != "Ada Lovelace" {
		t.Errorf("input_value: %q %v", v, err)
	}
	// fill("") clears.
	must("clear", loc(t, p, "#name").Fill(bg, "", false, 0))
	if v, _ := loc(t, p, "#name").InputValue(bg, 0); v != "" {
		t.Errorf("after clearing: %q", v)
	}
}

func TestKeyboard(t *testing.T) {
	p := open(t, "/form.html")
	name := loc(t, p, "#name")
	if err := name.PressSequentially(bg, "Hello wörld", 0, 0); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"Shift+ArrowLeft", "Shift+ArrowLeft", "Backspace", "End", "!"} {
		if err := name.Press(bg, k, 0); err != nil {
			t.Fatalf("press %s: %v", k, err)
		}
	}
	if v, _ := name.InputValue(bg, 0); v != "Hello wör!" {
		t.Errorf("after typing and editing: %q", v)
	}
	if err := name.Press(bg, "Control+A", 0); err != nil {
		t.Fatal(err)
	}
	if err := p.Keyboard().Type(bg, "Grace", 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := name.InputValue(bg, 0); v != "Grace" {
		t.Errorf("after Control+A and typing: %q", v)
	}
	if err := p.Keyboard().Press(bg, "Tab"); err != nil {
		t.Fatal(err)
	}
	if id := eval[string](t, p, "document.activeElement.id"); id != "email" {
		t.Errorf("Tab moved focus to %q, want email", id)
	}
	// Enter in a form field submits it.
	if err := loc(t, p, "#email").Press(bg, "Enter", 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text(t, p, "#out"), `"name":"Grace"`) {
		t.Errorf("Enter did not submit: %s", text(t, p, "#out"))
	}
	wantType(t, p.Keyboard().Press(bg, "Hyper+x"), ErrInvalidParams, "Hyper")
	wantType(t, p.Keyboard().Press(bg, "NoSuchKey"), ErrInvalidParams, "NoSuchKey")
	wantType(t, p.Keyboard().Press(bg, ""), ErrInvalidParams)
}

func TestStrictMode(t *testing.T) {
	p := open(t, "/buttons.html")
	err := loc(t, p, "text=Add to cart").Click(bg, ClickOptions{})
	wantType(t, err, ErrStrictMode, "matches 7 elements", "1) <button", "5) <button", "and 2 more", "nth=")
	if strings.Contains(err.Error(), "6) ") {
		t.Errorf("more than five candidates listed: %v", err)
	}
	// Reads are strict too; count and all_* are not.
	_, err = loc(t, p, "h2").InnerText(bg, 0)
	wantType(t, err, ErrStrictMode)
	for _, sel := range []string{"text=Add to cart >> nth=1", `li >> has-text="Black mug" >> role=button`, `role=listitem >> nth=-1 >> button`} {
		if err := loc(t, p, sel).Click(bg, ClickOptions{}); err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
	}
	if got := text(t, p, "#cart"); got != "3 Blue mug,Black mug,Tea pot" {
		t.Errorf("cart: %q", got)
	}
}

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

func TestDialogs(t *testing.T) {
	p := open(t, "/dialog.html")
	for _, c := range []struct{ button, want string }{
		{"#alert", "after alert"}, {"#confirm", "confirm=true"}, {"#prompt", "prompt=Ada"},
	} {
		if err := loc(t, p, c.button).Click(bg, ClickOptions{}); err != nil {
			t.Fatalf("click %s: %v", c.button, err)
		}
		if got := text(t, p, "#r"); got != c.want {
			t.Errorf("%s: result %q, want %q", c.button, got, c.want)
		}
	}
	d := p.Dialogs(true)
	if len(d) != 3 || d[0].Type != "alert" || d[0].Message != "Saved!" || d[1].Type != "confirm" || d[2].DefaultValue != "Ada" {
		t.Errorf("dialogs: %+v", d)
	}
	if len(p.Dialogs(false)) != 0 {
		t.Errorf("dialogs not cleared")
	}
	// An HTML <dialog> is an ordinary element with the dialog role.
	if err := loc(t, p, "role=button[name='Open settings']").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := loc(t, p, "role=dialog[name=Settings] >> role=button[name=Close]").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := text(t, p, "#r"); got != "closed" {
		t.Errorf("dialog element: %q", got)
	}
}

func TestPopups(t *testing.T) {
	p := open(t, "/popup.html")
	before := len(shared.Pages())
	if err := loc(t, p, "#tab").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	popup := waitForPage(t, p.ID(), before)
	t.Cleanup(func() { _ = popup.Close(bg) })
	if err := popup.WaitForLoadState(bg, Load, 0); err != nil {
		t.Fatal(err)
	}
	if title, _ := popup.Title(bg); title != "Second page" {
		t.Errorf("popup title %q", title)
	}
	if popup.Opener() != p.ID() {
		t.Errorf("opener %q, want %s", popup.Opener(), p.ID())
	}
	if err := loc(t, p, "#win").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	win := waitForPage(t, p.ID(), before+1)
	t.Cleanup(func() { _ = win.Close(bg) })
	if _, err := win.WaitForURL(bg, "**/page2.html?from=button", Load, 0); err != nil {
		t.Errorf("window.open page: %v", err)
	}
}

// waitForPage waits for the browser to have more than n pages and returns
// the newest, which must have been opened by opener.
func waitForPage(t *testing.T, opener string, n int) *Page {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		pages := shared.Pages()
		if len(pages) > n {
			last := pages[len(pages)-1]
			if last.Opener() != opener {
				t.Fatalf("newest page %s has opener %q, want %s", last.ID(), last.Opener(), opener)
			}
			return last
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no new page appeared")
	return nil
}

func TestLazyList(t *testing.T) {
	p := open(t, "/lazy.html")
	// Before the first batch the list is empty; read both at once, since a
	// loaded machine may open the page after the batch is in.
	raw, err := p.Evaluate(bg, `() => [document.getElementById('status').textContent, document.querySelectorAll('li').length]`, nil, 0)
	var before []any
	if err != nil || json.Unmarshal(raw, &before) != nil || len(before) != 2 {
		t.Fatalf("read the list: %s %v", raw, err)
	}
	if before[0] == "loading" && before[1] != float64(0) {
		t.Errorf("items before loading: %v", before[1])
	}
	if err := loc(t, p, "text=Item 20").WaitFor(bg, "", 0); err != nil {
		t.Fatalf("wait for item 20: %v", err)
	}
	// Scrolling to the last item loads more.
	if err := loc(t, p, "li >> nth=-1").ScrollIntoViewIfNeeded(bg, 0); err != nil {
		t.Fatal(err)
	}
	if err := loc(t, p, "text=Item 40").Click(bg, ClickOptions{}); err != nil {
		t.Fatalf("click item 40: %v", err)
	}
	if err := p.Mouse().Wheel(bg, 0, 5000); err != nil {
		t.Fatal(err)
	}
	if err := p.WaitForSelector(bg, "text=Item 60", stateAttached, 0); err != nil {
		t.Fatalf("wait for item 60: %v", err)
	}
	texts, err := loc(t, p, "li").AllTexts(bg, "inner_text")
	if err != nil || len(texts) != 60 || texts[59] != "Item 60" {
		t.Errorf("all texts: %d %v", len(texts), err)
	}
	if err := loc(t, p, "text=Item 61").WaitFor(bg, stateAttached, 300*time.Millisecond); !IsType(err, ErrTimeout) {
		t.Errorf("item 61 should never come: %v", err)
	}
	if err := loc(t, p, "#status").WaitFor(bg, stateHidden, 200*time.Millisecond); !IsType(err, ErrTimeout) {
		t.Errorf("status is visible: %v", err)
	}
	if err := loc(t, p, "#gone").WaitFor(bg, stateDetached, 0); err != nil {
		t.Errorf("detached: %v", err)
	}
	if hidden, _ := loc(t, p, "#gone").Is(bg, "hidden"); !hidden {
		t.Errorf("a missing element is hidden")
	}
	if vis, _ := loc(t, p, "#gone").Is(bg, "visible"); vis {
		t.Errorf("a missing element is not visible")
	}
}

func TestShadowDOM(t *testing.T) {
	p := open(t, "/shadow.html")
	if err := loc(t, p, "label=Search").Fill(bg, "deep query", false, 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := loc(t, p, "#host #q").InputValue(bg, 0); v != "deep query" {
		t.Errorf("shadow input: %q", v)
	}
	if err := loc(t, p, "role=button[name='Go deep']").Click(bg, ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := text(t, p, "#light"); got != "shadow clicked" {
		t.Errorf("light: %q", got)
	}
	if got := text(t, p, "x-card >> testid=nested"); got != "Nested text" {
		t.Errorf("nested: %q", got)
	}
}

func TestFrames(t *testing.T) {
	p := open(t, "/frames.html?cross="+other+"/frame_child.html")
	if err := p.WaitForSelector(bg, "iframe#cross >> #b", stateVisible, 0); err != nil {
		t.Fatalf("cross-origin frame content: %v", err)
	}
	for _, c := range []struct{ frame, host string }{
		{"#same", strings.TrimPrefix(site.URL, "http://")},
		{"#cross", strings.TrimPrefix(other, "http://")},
	} {
		sel := "iframe" + c.frame + " >> role=button[name='Frame button']"
		if err := loc(t, p, sel).Click(bg, ClickOptions{}); err != nil {
			t.Fatalf("click in %s: %v", c.frame, err)
		}
		got := text(t, p, "iframe"+c.frame+" >> #b")
		if got != "pressed in "+c.host {
			t.Errorf("%s: %q", c.frame, got)
		}
		in := loc(t, p, "iframe"+c.frame+" >> label=Frame input")
		if err := in.Fill(bg, "typed "+c.frame, false, 0); err != nil {
			t.Fatalf("fill in %s: %v", c.frame, err)
		}
		if v, _ := in.InputValue(bg, 0); v != "typed "+c.frame {
			t.Errorf("%s input: %q", c.frame, v)
		}
	}
	n, err := loc(t, p, "iframe >> #b").Count(bg)
	if err != nil || n != 2 {
		t.Errorf("buttons in both frames: %d %v", n, err)
	}
	if err := loc(t, p, "iframe >> #b >> nth=1").Click(bg, ClickOptions{}); err != nil {
		t.Errorf("nth across frames: %v", err)
	}
	// Without a frame part, selectors stay in the page.
	if n, _ := loc(t, p, "#b").Count(bg); n != 0 {
		t.Errorf("#b matched %d in the top document", n)
	}
}
