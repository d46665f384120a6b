package browser

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
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

func TestInvalidSelectors(t *testing.T) {
	for _, sel := range []string{
		"", "   ", "div >> ", ">> div", "nth=first", "nth=0", "foo=bar",
		"role=buton", "role=doc-nonsense", "role=button-", "role=button[nme=x]", "role=button[level=x]", "role=button[checked=maybe]", "div[", "a >", "div:has-text()", ":nth-match(li)",
		":nth-match(li, 0)", `internal:has="div`, `internal:has=div`, `internal:attr=placeholder`, "internal:control=foo", `"`, "'",
		"visible=yes", "div >> aria-ref=e1", "aria-ref=e 1",
	} {
		_, err := parseSelector(sel)
		if err == nil {
			t.Errorf("%q: want an error", sel)
			continue
		}
		if TypeOf(err) != ErrInvalidSelector {
			t.Errorf("%q: want InvalidSelector, got %s: %v", sel, TypeOf(err), err)
		}
	}
	// Errors only the browser can find: CSS, XPath and JavaScript regex syntax.
	p := open(t, "/buttons.html")
	for _, sel := range []string{"div:visible:bogus", "//div[", "text=/(/", "li >> has-text=/[/", "div:has-text('a'):bogus"} {
		_, err := loc(t, p, sel).Count(bg)
		wantType(t, err, ErrInvalidSelector)
	}
	err := loc(t, p, "div:bogus").Click(bg, ClickOptions{Timeout: 5 * time.Second})
	wantType(t, err, ErrInvalidSelector, "div:bogus")
}

// TestSelectorEngines checks what each engine matches on the fixtures.
func TestSelectorEngines(t *testing.T) {
	form := open(t, "/form.html")
	buttons := open(t, "/buttons.html")
	shadow := open(t, "/shadow.html")
	roles := open(t, "/roles.html")
	tests := []struct {
		page  *Page
		sel   string
		count int
		texts []string // all_text_contents, when given
	}{
		{buttons, "button.add", 7, nil},
		{buttons, "css=li.card >> button", 7, nil},
		{buttons, "//li/h2", 7, nil},
		{buttons, "li >> xpath=.//button", 7, nil},
		{buttons, `text="Add to cart"`, 7, nil}, // hidden elements match, as in Playwright
		{buttons, `text=add TO cart`, 7, nil},
		{buttons, `text=/^add to/i`, 7, nil},
		{buttons, `text="Add to"`, 0, nil}, // quoted is a whole-text match
		{buttons, `"Red mug"`, 1, []string{"Red mug"}},
		{buttons, `text=mug`, 6, nil},
		{buttons, `li >> has-text="Blue" >> button`, 1, nil},
		{buttons, `li >> has-text=/^green/i >> h2`, 1, []string{"Green mug"}},
		{buttons, `li >> has-text="blue"`, 0, nil}, // quoted has-text is case-sensitive
		{buttons, `li >> visible=false`, 1, nil},
		{buttons, `button >> visible=true`, 6, nil},
		{buttons, `button >> nth=0`, 1, nil},
		{buttons, `h2 >> nth=-1`, 1, []string{"Hidden mug"}},
		{buttons, `h2 >> nth=99`, 0, nil},
		{buttons, `role=button[name="Add to cart"]`, 6, nil},
		{buttons, `role=button[name="Add to cart"][include-hidden]`, 7, nil},
		{buttons, `role=listitem`, 6, nil},
		{buttons, `role=heading[level=2] >> nth=1`, 1, []string{"Blue mug"}},
		{buttons, `role=heading[level=3]`, 0, nil},
		{form, `label=Full name`, 1, nil},
		{form, `label="Email"`, 1, nil},
		{form, `label=/accept the terms/`, 1, nil},
		{form, `label=Newsletter`, 1, nil},
		{form, `placeholder="Jane Doe"`, 1, nil},
		{form, `role=checkbox`, 3, nil},
		{form, `role=checkbox[checked]`, 1, nil},
		{form, `role=checkbox[checked=false]`, 2, nil},
		{form, `role=radio[checked]`, 1, nil},
		{form, `role=radio[name="Pro"]`, 1, nil},
		{form, `role=combobox[name="Country"]`, 1, nil},
		{form, `role=listbox[name="Tags"]`, 1, nil},
		{form, `role=option[name="Germany"]`, 1, nil},
		{form, `role=textbox[name="Bio"]`, 1, nil},
		{form, `role=button[name="Unavailable"][disabled]`, 1, nil},
		{form, `role=button[name="Submit"][disabled=false]`, 1, nil},
		{form, `role=group[name="Plan"] >> role=radio`, 2, nil},
		{roles, `alt="Company logo"`, 1, nil},
		{roles, `title="Help link"`, 1, nil},
		{roles, `role=link[name="?"]`, 1, nil},
		{roles, `role=row[name="Ada 36"]`, 1, nil},
		{roles, `role=dialog[name="Cookie notice"]`, 1, nil},
		{roles, `role=img[name="Company logo"]`, 1, nil},
		{roles, `role=cell[name="Ada"]`, 1, nil},
		{roles, `role=switch[checked]`, 1, nil},
		{shadow, `.go`, 1, []string{"Go deep"}},
		{shadow, `#host .inner input`, 1, nil},
		{shadow, `x-card .nested`, 1, []string{"Nested text"}},
		{shadow, `text="Nested text"`, 1, nil},
		{shadow, `role=button[name="Go deep"]`, 1, nil},
		{shadow, `label=Search`, 1, nil},
		{shadow, `placeholder=Find`, 1, nil},
		{shadow, `testid=nested`, 1, nil},
		{shadow, `text=Secret`, 0, nil}, // closed shadow roots stay closed
	}
	for _, tt := range tests {
		l, err := tt.page.Locator(tt.sel)
		if err != nil {
			t.Errorf("%s: %v", tt.sel, err)
			continue
		}
		n, err := l.Count(bg)
		if err != nil {
			t.Errorf("%s: count: %v", tt.sel, err)
			continue
		}
		if n != tt.count {
			t.Errorf("%s: %d matches, want %d", tt.sel, n, tt.count)
		}
		if tt.texts != nil {
			got, err := l.AllTexts(bg, "text_content")
			if err != nil || strings.Join(got, "|") != strings.Join(tt.texts, "|") {
				t.Errorf("%s: texts %q (%v), want %q", tt.sel, got, err, tt.texts)
			}
		}
	}
}

// TestRolesAgreeWithAXTree compares the engine's roles and names with the
// accessibility tree Chromium builds for the same elements.
func TestRolesAgreeWithAXTree(t *testing.T) {
	p := open(t, "/roles.html")
	ctx := context.Background()
	n, err := loc(t, p, "[data-ax]").Count(ctx)
	if err != nil || n < 20 {
		t.Fatalf("count [data-ax]: %d, %v", n, err)
	}
	tree, err := proto.AccessibilityGetFullAXTree{}.Call(p.rod.Context(ctx))
	if err != nil {
		t.Fatalf("ax tree: %v", err)
	}
	ax := map[proto.DOMBackendNodeID]*proto.AccessibilityAXNode{}
	for _, node := range tree.Nodes {
		if node.BackendDOMNodeID != 0 {
			ax[node.BackendDOMNodeID] = node
		}
	}
	// Chromium's names for a few roles differ from ARIA's.
	chromium := map[string]string{"image": "img", "ListMarker": "", "LabelText": "", "generic": ""}
	for i := 0; i < n; i++ {
		sel := "[data-ax] >> nth=" + strconv.Itoa(i)
		role, name, err := p.roleAndName(ctx, sel)
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		o := p.begin(ctx, 0)
		h, err := loc(t, p, sel).waitOne(o, stateAttached, "")
		if err != nil {
			t.Fatal(err)
		}
		id, err := p.nodeID(o, h)
		o.end()
		if err != nil {
			t.Fatal(err)
		}
		node := ax[id]
		if node == nil {
			t.Errorf("%s (%s %q): not in the accessibility tree", sel, role, name)
			continue
		}
		axRole := node.Role.Value.Str()
		if r, ok := chromium[axRole]; ok {
			axRole = r
		}
		axName := ""
		if node.Name != nil {
			axName = strings.Join(strings.Fields(node.Name.Value.Str()), " ")
		}
		if role == "row" && axName == "" {
			// Rows are named from their cells, as the ARIA snapshot prints
			// them (Chromium leaves them unnamed); TestRoleAgreementEdgeCases
			// holds role=row to the snapshot.
			axName = name
		}
		if role != axRole || name != axName {
			t.Errorf("%s: engine says %s %q, Chromium says %s %q", sel, role, name, axRole, axName)
		}
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestParseCustomEngineParts(t *testing.T) {
	known := func(n string) bool { return n == "tag" || n == "Foo_1" }
	parts, err := parseSelector("div >> tag=SPAN >> Foo_1=x y", known)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 3 || parts[1].Custom != "tag" || parts[1].Value != "SPAN" || parts[2].Custom != "Foo_1" || parts[2].Value != "x y" {
		t.Fatalf("parts: %+v", parts)
	}
	// Names are case-sensitive, and an engine nobody registered is named as written.
	for sel, name := range map[string]string{"TAG=div": "TAG", "nope=x": "nope", "div >> internal:has=\"tagx=a\"": "tagx"} {
		_, err := parseSelector(sel, known)
		if err == nil || !strings.Contains(err.Error(), `Unknown engine "`+name+`" while parsing selector `+sel) {
			t.Errorf("%s: %v", sel, err)
		}
	}
	// Without a registry every custom name is unknown; built-in names still lower-case.
	if _, err := parseSelector("tag=div"); err == nil {
		t.Error("tag=div parsed without a registry")
	}
	if _, err := parseSelector("CSS=div"); err != nil {
		t.Errorf("CSS=div: %v", err)
	}
}

func TestRegisterSelectorEngineChecks(t *testing.T) {
	b := &Browser{}
	src := "{ queryAll(root, s) { return []; } }"
	if err := b.RegisterSelectorEngine("dummy", src, false); err != nil {
		t.Fatal(err)
	}
	if err := b.RegisterSelectorEngine("duMMy", src, true); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, src, want string }{
		{"$", src, "may only contain [a-zA-Z0-9_]"},
		{"dummy", src, `"dummy" selector engine has been already registered`},
		{"css", src, `"css" is a predefined selector engine`},
		{"nth", src, `"nth" is a predefined selector engine`},
		{"empty", " ", "needs a script"},
	} {
		err := b.RegisterSelectorEngine(c.name, c.src, false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v", c.name, err)
		}
	}
	if e, ok := b.customEngine("duMMy"); !ok || e.main {
		t.Errorf("duMMy: %+v %v", e, ok)
	}
}
