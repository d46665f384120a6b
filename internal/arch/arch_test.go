package arch

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// root is the module's folder, two levels up from this package.
var root = filepath.Join("..", "..")

var (
	loadOnce sync.Once
	loaded   []Package
	loadErr  error
)

// modulePackages lists the module once for all the tests.
func modulePackages(t *testing.T) []Package {
	t.Helper()
	loadOnce.Do(func() { loaded, loadErr = Load(context.Background(), root) })
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	if len(loaded) < 20 {
		t.Fatalf("go list found %d packages: the module was not read", len(loaded))
	}
	return loaded
}

func architecturePage(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(doc)
}

// TestImportsRunDown holds the rule of docs/architecture.md on the code as
// it is: every package is in a layer, says what it holds, and imports only
// its own layer and the ones below.
func TestImportsRunDown(t *testing.T) {
	for _, err := range Check(modulePackages(t)) {
		t.Error(err)
	}
}

// TestPackageMapIsCurrent fails when the committed page differs from what
// `make docs` would write now: a package added, moved, renamed, given
// another doc comment or another import without the page.
func TestPackageMapIsCurrent(t *testing.T) {
	doc := architecturePage(t)
	want, err := Generate(doc, modulePackages(t))
	if err != nil {
		t.Fatal(err)
	}
	if doc != want {
		t.Errorf("docs/architecture.md is stale: run `make docs`\n%s", firstDifference(doc, want))
	}
}

// TestBrowserFileTableIsCurrent fails when a file of the browser package
// is missing from the page's table, or the table names a file that is gone.
func TestBrowserFileTableIsCurrent(t *testing.T) {
	problems, err := BrowserFileProblems(architecturePage(t), filepath.Join(root, "browser"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// TestCheckCatchesWhatBreaksTheRule plants each kind of break in a copy of
// the real package list: an import up a layer, a package in no layer, one
// with no doc. Each must be named; the untouched list has none.
func TestCheckCatchesWhatBreaksTheRule(t *testing.T) {
	pkgs := modulePackages(t)
	plant := func(edit func([]Package) []Package) []error {
		cp := make([]Package, len(pkgs))
		for i, p := range pkgs {
			cp[i] = p
			cp[i].Imports = append([]string(nil), p.Imports...)
		}
		return Check(edit(cp))
	}
	cases := map[string]struct {
		edit func([]Package) []Package
		want string
	}{
		"the driver imports the harness": {func(ps []Package) []Package {
			for i := range ps {
				if ps[i].Path == "browser/driver" {
					ps[i].Imports = append(ps[i].Imports, "run/harness")
				}
			}
			return ps
		}, "browser/driver (layer browser) imports run/harness (layer run), a layer above it"},
		"a helper imports the model": {func(ps []Package) []Package {
			return append(ps, Package{Path: "internal/newhelper", Doc: "Package newhelper helps.", Imports: []string{"model"}})
		}, "internal/newhelper (layer internal) imports model (layer model)"},
		"a new top-level folder": {func(ps []Package) []Package {
			return append(ps, Package{Path: "util", Doc: "Package util is everything."})
		}, "util is in no layer"},
		"no doc comment": {func(ps []Package) []Package {
			return append(ps, Package{Path: "run/quiet"})
		}, "run/quiet has no package doc comment"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			errs := plant(c.edit)
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), c.want) {
				t.Fatalf("Check = %v, want one error naming %q", errs, c.want)
			}
		})
	}
}

// TestAStaleMapIsCaught edits the committed map as a forgetful change
// would (a row gone, an import not added) and expects the comparison that
// TestPackageMapIsCurrent makes to fail; the same with the browser table.
func TestAStaleMapIsCaught(t *testing.T) {
	doc := architecturePage(t)
	pkgs := modulePackages(t)
	fresh, err := Generate(doc, pkgs)
	if err != nil {
		t.Fatal(err)
	}
	moved := append([]Package(nil), pkgs...)
	moved = append(moved, Package{Path: "run/newpart", Doc: "Package newpart is new.", Imports: []string{"model"}})
	if stale, _ := Generate(fresh, moved); stale == fresh {
		t.Fatal("a package added to the code left the generated page unchanged")
	}
	if got, _ := Generate(fresh, pkgs); got != fresh {
		t.Fatal("generating twice from the same code gave two pages")
	}
	dropped := strings.Replace(fresh, "| `page.go` |", "| `pages.go` |", 1)
	if dropped == fresh {
		t.Fatal("the browser table has no row for page.go")
	}
	problems, err := BrowserFileProblems(dropped, filepath.Join(root, "browser"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(problems, "\n") != "browser/page.go is not in the file table of docs/architecture.md\ndocs/architecture.md lists browser/pages.go, which is not there" {
		t.Fatalf("a renamed row gave %q", problems)
	}
}

func TestLayerOf(t *testing.T) {
	for path, want := range map[string]string{
		"bench":                 "bench",
		"bench/results":         "bench",
		"bench/measure/scale":   "measure",
		"run/judge/keyproxy":    "run",
		"browser/driver":        "browser",
		"internal/arch/archdoc": "internal",
		"cmd/wright":            "cmd",
	} {
		if i := LayerOf(path); i < 0 || Layers[i].Name != want {
			t.Errorf("LayerOf(%s) = %d, want layer %s", path, i, want)
		}
	}
	for _, path := range []string{"runner", "benchmark", "browserx", "."} {
		if i := LayerOf(path); i >= 0 {
			t.Errorf("LayerOf(%s) = %s: a folder only shares a prefix, it is not in the layer", path, Layers[i].Name)
		}
	}
}

// firstDifference shows the first line where two pages part.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "line " + strconv.Itoa(i+1) + ":\n  committed: " + al[i] + "\n  generated: " + bl[i]
		}
	}
	return "one page is a prefix of the other"
}
