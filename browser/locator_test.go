package browser

import (
	"encoding/json"
	"reflect"
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
