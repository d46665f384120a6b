package selector

import (
	"encoding/json"
	"testing"
)

func TestParseSelector(t *testing.T) {
	tests := []struct {
		sel  string
		want []Part
	}{
		{"#a .b", []Part{{Engine: "css", CSS: "#a .b"}}},
		// a nested chain is flattened unless its meaning depends on where it starts
		{`div >> internal:chain="span >> b"`, []Part{{Engine: "css", CSS: "div"}, {Engine: "css", CSS: "span"}, {Engine: "css", CSS: "b"}}},
		{`div >> internal:chain="b >> internal:or=\"i\""`, []Part{{Engine: "css", CSS: "div"}, {Engine: "chain", Inner: []Part{{Engine: "css", CSS: "b"}, {Engine: "or", Inner: []Part{{Engine: "css", CSS: "i"}}}}}}},
		{`ul >> internal:chain="li >> nth=1"`, []Part{{Engine: "css", CSS: "ul"}, {Engine: "chain", Inner: []Part{{Engine: "css", CSS: "li"}, {Engine: "nth", N: 1}}}}},
		{"css=div > p", []Part{{Engine: "css", CSS: "div > p"}}},
		{"//div[@id='x']", []Part{{Engine: "xpath", XPath: "//div[@id='x']"}}},
		{`text="Save"`, []Part{{Engine: "text", Match: &TextMatch{Kind: "node", Value: "Save"}}}},
		{`text="`, []Part{{Engine: "text", Match: &TextMatch{Kind: "ci", Value: `"`}}}},
		{`text='`, []Part{{Engine: "text", Match: &TextMatch{Kind: "ci", Value: `'`}}}},
		{`text="Save"s`, []Part{{Engine: "text", Match: &TextMatch{Kind: "exact", Value: "Save"}}}},
		{`text='it\'s'`, []Part{{Engine: "text", Match: &TextMatch{Kind: "node", Value: "it's"}}}},
		{`text="a"x`, []Part{{Engine: "text", Match: &TextMatch{Kind: "ci", Value: `"a"x`}}}},
		{`text=/`, []Part{{Engine: "text", Match: &TextMatch{Kind: "ci", Value: `/`}}}},
		{`text=/let's/i >> span`, []Part{{Engine: "text", Match: &TextMatch{Kind: "re", Value: "let's", Flags: "i"}}, {Engine: "css", CSS: "span"}}},
		{`text="Hi>>">>span`, []Part{{Engine: "text", Match: &TextMatch{Kind: "node", Value: "Hi>>"}}, {Engine: "css", CSS: "span"}}},
		{`text="Save"i`, []Part{{Engine: "text", Match: &TextMatch{Kind: "ci", Value: "Save"}}}},
		{`text=/sa+ve/i`, []Part{{Engine: "text", Match: &TextMatch{Kind: "re", Value: "sa+ve", Flags: "i"}}}},
		{`text=Save now`, []Part{{Engine: "text", Match: &TextMatch{Kind: "ci", Value: "Save now"}}}},
		{`"a >> b"`, []Part{{Engine: "text", Match: &TextMatch{Kind: "node", Value: "a >> b"}}}},
		{`role=button[name="Save"i][pressed]`, []Part{{Engine: "role", Role: "button", Name: &TextMatch{Kind: "ci", Value: "Save"}, Attrs: []RoleAttr{{Name: "pressed"}}}}},
		{`role=checkbox[checked=false]`, []Part{{Engine: "role", Role: "checkbox", Attrs: []RoleAttr{{Name: "checked", Value: false}}}}},
		{`role=checkbox[checked="mixed"]`, []Part{{Engine: "role", Role: "checkbox", Attrs: []RoleAttr{{Name: "checked", Value: "mixed"}}}}},
		{`role=button[pressed="mixed"]`, []Part{{Engine: "role", Role: "button", Attrs: []RoleAttr{{Name: "pressed", Value: "mixed"}}}}},
		{`role=Button`, []Part{{Engine: "role", Role: "button"}}},
		// Every role the snapshot prints is one role= takes (the role table).
		{`role=doc-subtitle`, []Part{{Engine: "role", Role: "doc-subtitle"}}},
		{`role=graphics-document[name="Map"]`, []Part{{Engine: "role", Role: "graphics-document", Name: &TextMatch{Kind: "exact", Value: "Map"}}}},
		{`role=iframe`, []Part{{Engine: "role", Role: "iframe"}}},
		{`text="a \u003e\u003e b"`, []Part{{Engine: "text", Match: &TextMatch{Kind: "node", Value: "a >> b"}}}},
		{`role=heading[level=2]`, []Part{{Engine: "role", Role: "heading", Attrs: []RoleAttr{{Name: "level", Value: 2}}}}},
		{`role=link[name=/a]b/][include-hidden]`, []Part{{Engine: "role", Role: "link", Name: &TextMatch{Kind: "re", Value: "a]b"}, IncludeHidden: true}}},
		{`ul >> li >> nth=-1`, []Part{{Engine: "css", CSS: "ul"}, {Engine: "css", CSS: "li"}, {Engine: "nth", N: -1}}},
		{`li >> has-text="Buy"`, []Part{{Engine: "css", CSS: "li"}, {Engine: "has-text", Match: &TextMatch{Kind: "cs", Value: "Buy"}}}},
		{`button >> visible=true`, []Part{{Engine: "css", CSS: "button"}, {Engine: "visible", Visible: true}}},
		{`testid=save-btn`, []Part{{Engine: "testid", Value: "save-btn"}}},
		{`testid="x y"`, []Part{{Engine: "testid", Value: "x y"}}},
		{`aria-ref=e12`, []Part{{Engine: "aria-ref", Ref: "e12"}}},
		{`a[title="x >> y"] >> span`, []Part{{Engine: "css", CSS: `a[title="x >> y"]`}, {Engine: "css", CSS: "span"}}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.sel)
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

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestEnterFramePart: a frame locator's chain keeps a part that enters the
// frame, naming the parts before it as a script writes them.
func TestEnterFramePart(t *testing.T) {
	parts, err := Parse("body >> iframe >> internal:control=enter-frame >> iframe.inner >> internal:control=enter-frame >> button")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range parts {
		if p.Engine == "enter-frame" {
			names = append(names, p.Value)
		}
	}
	want := []string{`locator("body").locator("iframe")`, `locator("body").locator("iframe").content_frame.locator("iframe.inner")`}
	if len(names) != len(want) || names[0] != want[0] || names[1] != want[1] {
		t.Fatalf("enter-frame parts name %q, want %q", names, want)
	}
	if last := parts[len(parts)-1]; last.Engine != "css" {
		t.Fatalf("the part after the frame is %+v, want the css part", last)
	}
}
