package browser

import (
	"strings"
	"testing"
)

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
