package browser

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// ids returns the id attribute of every element sel matches, in order
// ("-" for an element without one).
func ids(t *testing.T, p *Page, sel string) []string {
	t.Helper()
	l := loc(t, p, sel)
	o := p.begin(bg, 5*time.Second)
	defer o.end()
	hs, err := l.resolveNow(o)
	if err != nil {
		t.Fatalf("%s: %v", sel, err)
	}
	out := []string{}
	for _, h := range hs {
		var id *string
		if err := p.callValue(o, h.ec, "attribute", &id, objArg(h.obj), valArg("id")); err != nil {
			t.Fatalf("%s: id: %v", sel, err)
		}
		if id == nil || *id == "" {
			out = append(out, "-")
		} else {
			out = append(out, *id)
		}
	}
	return out
}

// TestPlaywrightSelectors checks Playwright's engines and pseudo-classes on
// a fixture, as the Python client's locators and get_by_* send them.
func TestPlaywrightSelectors(t *testing.T) {
	p := open(t, "/selectors.html")
	tests := []struct {
		sel  string
		want string // ids joined by a space
	}{
		// text=: unquoted is a substring in any case, the smallest element;
		// quoted matches one of the element's own text runs; /re/ the raw text.
		{`text=HELLO`, "d1 d2 s3 hidden"},
		{`text="hello"`, "d1 d2 s3"},
		{`text='hello'`, "d1 d2 s3"},
		{`"hello"`, "d1 d2 s3"},
		{`text="Sign in"`, "d4"},
		{`text=ab`, "d5"},
		{`text=/^hello$/`, "d2 s3"},
		{`text=/HELLO/i >> nth=0`, "d1"},
		{`text="it's \"quoted\""`, "quote"},
		{`text=Send form`, "submit"},
		{`text=shadow text`, "deep"},
		{`text:light=shadow text`, ""},
		{`#d1 >> text=hello`, "d1"},
		// internal:text from get_by_text: "..."s is the whole text.
		{`internal:text="helloworld"s`, "d1"},
		{`internal:text="hello"s`, "d2 s3"},
		{`internal:text="HELLO"i`, "d1 d2 s3 hidden"},
		{`internal:text=/^hello/`, "d1 d2 s3 hidden"},
		// CSS pseudo-classes.
		{`div:has-text("hello")`, "d1 d2 d3 hidden"},
		{`div:has-text("HELLO WORLD")`, ""},
		{`div:has-text("helloworld")`, "d1"},
		{`#texts :text("hello")`, "d1 d2 s3 hidden"},
		{`:text-is("hello")`, "d1 d2 s3"},
		{`div:text-is("hello")`, "d1 d2"},
		{`:text-matches("^hel+o$", "i")`, "d2 s3"},
		{`div:visible:has-text("hello")`, "d1 d2 d3"},
		{`#texts div:not(:has-text("hello"))`, "d4 d5"},
		{`#texts div:is(:text("hello"), #d5)`, "d1 d2 d5 hidden"},
		{`#texts div:has(span:text-is("hello"))`, "d3"},
		{`#texts div:has(> #s1)`, "d1"},
		{`:nth-match(#texts div, 2)`, "d2"},
		{`:nth-match(li:has-text("Buy"), 3)`, "-"},
		{`li:has-text("Two") button`, "-"},
		{`#list > li:visible`, "- - -"},
		// >> chains, nth=, visible=, attribute engines.
		{`#list >> li >> nth=-1`, "-"},
		{`.item >> visible=true >> nth=1 >> text=Sell`, "-"},
		{`id=d2`, "d2"},
		{`id="d2"`, "d2"},
		{`data-testid=first`, "-"},
		{`data-test-id=second`, "-"},
		{`data-test=third`, "-"},
		{`xpath=//div[@id="d1"]/span`, "s1"},
		{`#d1 >> xpath=./span`, "s1"},
		// internal: forms of get_by_* and filter().
		{`internal:role=button[name="buy"i]`, "- -"},
		{`internal:role=button[name="Buy"s][disabled=true]`, "-"},
		{`internal:role=button[name="Save"s][description="Stores the form"i]`, "save"},
		{`internal:role=checkbox[checked=true]`, "agree"},
		{`internal:role=button[include-hidden=true][name=/^buy$/i]`, "- - -"},
		{`internal:label="Full name"i`, "name"},
		{`internal:label="full"i`, "name"},
		{`internal:label="email ADDRESS"i`, "mail"},
		{`internal:label="Secret word"s`, "pw"},
		{`internal:attr=[placeholder="jane"i]`, "name"},
		{`internal:attr=[alt="Company logo"s]`, "logo"},
		{`internal:attr=[title=/mail$/]`, "mail"},
		{`internal:testid=[data-testid="first"s]`, "-"},
		{`li >> internal:has-text="Two"i`, "-"},
		{`li >> internal:has-not-text="Buy"i`, "-"},
		{`li >> internal:has="button[disabled]"`, "-"},
		{`li >> internal:has-not="button" >> nth=0`, ""},
		{`div >> internal:and="#d2, #d3"`, "d2 d3"},
		{`#d2 >> internal:or="#d1"`, "d1 d2"},
		{`#texts >> internal:chain="div >> span"`, "s1 s3"},
		{`#texts >> internal:describe="the texts" >> #d2`, "d2"},
		{`*css=#texts div >> span`, "d1 d3"},
		{`#list >> *li >> text=Sell`, "-"},
		{`#host >> internal:has-text="shadow"i`, "host"},
		{`#host >> role=button`, "-"},
		// Layout pseudo-classes order by distance.
		{`.grid div:right-of(#g0)`, "g2"},
		{`.grid div:left-of(#g0)`, "g1"},
		{`.grid div:above(#g0)`, "g3"},
		{`.grid div:below(#g0)`, "g4"},
		{`.grid div:near(#g0, 60)`, "g1 g2 g3 g4"},
		{`.grid div:below(#g3):above(#g4)`, "g0 g1 g2"},
	}
	for _, tt := range tests {
		got := strings.Join(ids(t, p, tt.sel), " ")
		if got != tt.want {
			t.Errorf("%s: got [%s], want [%s]", tt.sel, got, tt.want)
		}
	}
}

// TestPlaywrightSelectorErrors: malformed Playwright selectors are
// InvalidSelector errors, at once.
func TestPlaywrightSelectorErrors(t *testing.T) {
	for _, sel := range []string{`internal:role=button[name=`, `internal:has=`, `internal:attr=[x]`, `:text-matches()`,
		`div:left-of(50)`, `internal:text="a`, `css=div:visible(1)`, `*css=div >> p >> nth=1`, `left-of="div"`} {
		if _, err := parseSelector(sel); TypeOf(err) != ErrInvalidSelector {
			t.Errorf("%q: want InvalidSelector, got %v", sel, err)
		}
	}
	p := open(t, "/selectors.html")
	_, err := loc(t, p, `text=/(/`).Count(bg)
	wantType(t, err, ErrInvalidSelector)
	_, err = loc(t, p, `div:has-text("x") > span:nope`).Count(bg)
	wantType(t, err, ErrInvalidSelector, "span:nope")
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

// TestHostilePage: a page that replaces Map, Set, Event, Array methods,
// Element.prototype.matches and getComputedStyle cannot break the engine,
// which runs in an isolated world; user code still sees the page's world.
func TestHostilePage(t *testing.T) {
	p := open(t, "/hostile.html")
	if err := loc(t, p, `internal:role=button[name="press"i]`).Click(bg, ClickOptions{Timeout: 5 * time.Second}); err != nil {
		t.Fatalf("click: %v", err)
	}
	if got := text(t, p, "#out"); got != "clicked" {
		t.Errorf("out: %q", got)
	}
	if err := loc(t, p, `internal:label="Your name"i`).Fill(bg, "Ada", false, 5*time.Second); err != nil {
		t.Fatalf("fill: %v", err)
	}
	if v, err := loc(t, p, "#i").InputValue(bg, 0); err != nil || v != "Ada" {
		t.Errorf("input value %q, %v", v, err)
	}
	if got, err := loc(t, p, "#s").SelectOption(bg, SelectOptions{Labels: []string{"Banana"}}, false, 5*time.Second); err != nil || len(got) != 1 || got[0] != "b" {
		t.Errorf("select: %v, %v", got, err)
	}
	if err := loc(t, p, "#c").SetChecked(bg, true, false, 5*time.Second); err != nil {
		t.Errorf("check: %v", err)
	}
	if n, err := loc(t, p, `p:has-text("clicked"):visible`).Count(bg); err != nil || n != 1 {
		t.Errorf("count: %d, %v", n, err)
	}
	// locator.evaluate runs in the page's world: it sees the page's Map.
	raw, err := loc(t, p, "#b").Evaluate(bg, "(el) => String(Map).includes('no Map') && el.id", nil, 0)
	if err != nil {
		t.Fatalf("evaluate: %v", err)
	}
	var got string
	if err := json.Unmarshal(raw, &got); err != nil || got != "b" {
		t.Errorf("evaluate in the page's world: %s, %v", raw, err)
	}
}
