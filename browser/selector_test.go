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

func TestParseSelector(t *testing.T) {
	tests := []struct {
		sel  string
		want []part
	}{
		{"#a .b", []part{{Engine: "css", CSS: "#a .b"}}},
		{"css=div > p", []part{{Engine: "css", CSS: "div > p"}}},
		{"//div[@id='x']", []part{{Engine: "xpath", XPath: "//div[@id='x']"}}},
		{`text="Save"`, []part{{Engine: "text", Match: &textMatch{Kind: "node", Value: "Save"}}}},
		{`text="`, []part{{Engine: "text", Match: &textMatch{Kind: "ci", Value: `"`}}}},
		{`text='`, []part{{Engine: "text", Match: &textMatch{Kind: "ci", Value: `'`}}}},
		{`text="Save"s`, []part{{Engine: "text", Match: &textMatch{Kind: "exact", Value: "Save"}}}},
		{`text='it\'s'`, []part{{Engine: "text", Match: &textMatch{Kind: "node", Value: "it's"}}}},
		{`text="a"x`, []part{{Engine: "text", Match: &textMatch{Kind: "ci", Value: `"a"x`}}}},
		{`text=/`, []part{{Engine: "text", Match: &textMatch{Kind: "ci", Value: `/`}}}},
		{`text=/let's/i >> span`, []part{{Engine: "text", Match: &textMatch{Kind: "re", Value: "let's", Flags: "i"}}, {Engine: "css", CSS: "span"}}},
		{`text="Hi>>">>span`, []part{{Engine: "text", Match: &textMatch{Kind: "node", Value: "Hi>>"}}, {Engine: "css", CSS: "span"}}},
		{`text="Save"i`, []part{{Engine: "text", Match: &textMatch{Kind: "ci", Value: "Save"}}}},
		{`text=/sa+ve/i`, []part{{Engine: "text", Match: &textMatch{Kind: "re", Value: "sa+ve", Flags: "i"}}}},
		{`text=Save now`, []part{{Engine: "text", Match: &textMatch{Kind: "ci", Value: "Save now"}}}},
		{`"a >> b"`, []part{{Engine: "text", Match: &textMatch{Kind: "node", Value: "a >> b"}}}},
		{`role=button[name="Save"i][pressed]`, []part{{Engine: "role", Role: "button", Name: &textMatch{Kind: "ci", Value: "Save"}, Attrs: []roleAttr{{Name: "pressed"}}}}},
		{`role=checkbox[checked=false]`, []part{{Engine: "role", Role: "checkbox", Attrs: []roleAttr{{Name: "checked", Value: false}}}}},
		{`role=checkbox[checked="mixed"]`, []part{{Engine: "role", Role: "checkbox", Attrs: []roleAttr{{Name: "checked", Value: "mixed"}}}}},
		{`role=button[pressed="mixed"]`, []part{{Engine: "role", Role: "button", Attrs: []roleAttr{{Name: "pressed", Value: "mixed"}}}}},
		{`role=Button`, []part{{Engine: "role", Role: "button"}}},
		{`text="a \u003e\u003e b"`, []part{{Engine: "text", Match: &textMatch{Kind: "node", Value: "a >> b"}}}},
		// Every role the snapshot prints is one role= takes (the role table).
		{`role=doc-subtitle`, []part{{Engine: "role", Role: "doc-subtitle"}}},
		{`role=graphics-document[name="Map"]`, []part{{Engine: "role", Role: "graphics-document", Name: &textMatch{Kind: "exact", Value: "Map"}}}},
		{`role=iframe`, []part{{Engine: "role", Role: "iframe"}}},
		{`role=heading[level=2]`, []part{{Engine: "role", Role: "heading", Attrs: []roleAttr{{Name: "level", Value: 2}}}}},
		{`role=link[name=/a]b/][include-hidden]`, []part{{Engine: "role", Role: "link", Name: &textMatch{Kind: "re", Value: "a]b"}, IncludeHidden: true}}},
		{`ul >> li >> nth=-1`, []part{{Engine: "css", CSS: "ul"}, {Engine: "css", CSS: "li"}, {Engine: "nth", N: -1}}},
		{`li >> has-text="Buy"`, []part{{Engine: "css", CSS: "li"}, {Engine: "has-text", Match: &textMatch{Kind: "cs", Value: "Buy"}}}},
		{`button >> visible=true`, []part{{Engine: "css", CSS: "button"}, {Engine: "visible", Visible: true}}},
		{`testid=save-btn`, []part{{Engine: "testid", Value: "save-btn"}}},
		{`testid="x y"`, []part{{Engine: "testid", Value: "x y"}}},
		{`aria-ref=e12`, []part{{Engine: "aria-ref", Ref: "e12"}}},
		{`a[title="x >> y"] >> span`, []part{{Engine: "css", CSS: `a[title="x >> y"]`}, {Engine: "css", CSS: "span"}}},
	}
	for _, tt := range tests {
		got, err := parseSelector(tt.sel)
		if tt.want == nil {
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.sel, err)
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("%s: got %d parts %+v, want %+v", tt.sel, len(got), got, tt.want)
			continue
		}
		for i := range got {
			g, w := jsonOf(got[i]), jsonOf(tt.want[i])
			if g != w {
				t.Errorf("%s part %d: got %s, want %s", tt.sel, i, g, w)
			}
		}
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
