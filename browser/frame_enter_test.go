package browser

import "testing"

// TestEnterFramePart: a frame locator's chain keeps a part that enters the
// frame, naming the parts before it as a script writes them.
func TestEnterFramePart(t *testing.T) {
	parts, err := parseSelector("body >> iframe >> internal:control=enter-frame >> iframe.inner >> internal:control=enter-frame >> button")
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
