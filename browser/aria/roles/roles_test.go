package roles

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestTable(t *testing.T) {
	for _, r := range []string{"button", "none", "presentation", "generic", "iframe", "doc-subtitle", "graphics-symbol"} {
		if !Is(r) {
			t.Errorf("Is(%q) = false", r)
		}
	}
	for _, r := range []string{"", "buton", "Button", "doc-nonsense", "image"} {
		if Is(r) {
			t.Errorf("Is(%q) = true", r)
		}
	}
	// The snapshot prints what an author may write, but never the
	// presentational roles, and iframe is its own line, not an author's.
	for r, want := range map[string]bool{"button": true, "doc-toc": true, "none": false, "presentation": false, "iframe": false} {
		if Printed(r) != want {
			t.Errorf("Printed(%q) = %v", r, !want)
		}
	}
	if !Has("iframe", Action) || !Has("textbox", Value) || Has("heading", Action) || !Has("row", Context) {
		t.Error("traits of iframe, textbox, heading or row are wrong")
	}
	// Every role with a trait is a role.
	for _, r := range All() {
		if !Is(r) {
			t.Errorf("All lists %q, which Is refuses", r)
		}
	}
}

// TestJSON checks the table role_engine.js is handed: per trait, exactly the
// roles that have it.
func TestJSON(t *testing.T) {
	var got map[string][]string
	if err := json.Unmarshal([]byte(JSON()), &got); err != nil {
		t.Fatal(err)
	}
	traits := map[string]Trait{"author": Author, "action": Action, "value": Value, "fromContent": FromContent,
		"container": Container, "checked": Checked, "selected": Selected, "level": Level, "expanded": Expanded}
	for name, tr := range traits {
		var want []string
		for _, r := range All() {
			if Has(r, tr) {
				want = append(want, r)
			}
		}
		if !slices.Equal(got[name], want) {
			t.Errorf("%s: JSON has %v, the table %v", name, got[name], want)
		}
	}
	if len(got) != len(traits) {
		t.Errorf("JSON has %d traits, want %d: %v", len(got), len(traits), got)
	}
}
