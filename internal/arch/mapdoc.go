package arch

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// The generated parts of docs/architecture.md stand between a BEGIN and an
// END marker each, so that the prose around them stays hand-written.
const (
	LayersSection     = "layers"
	PackageMapSection = "package map"
	BrowserSection    = "browser files"
)

func begin(section string) string {
	return "<!-- BEGIN " + section + ": made by `make docs` from internal/arch and go list; edit those, not this -->"
}

func end(section string) string { return "<!-- END " + section + " -->" }

// LayersTable is the table of layers, top first.
func LayersTable() string {
	var b strings.Builder
	b.WriteString("| # | layer | folders | what it holds |\n|---|---|---|---|\n")
	for i, l := range Layers {
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", i+1, l.Name, "`"+strings.Join(l.Folders, "/`, `")+"/`", cell(l.Holds))
	}
	return b.String()
}

// PackageMap is the table of packages, layer by layer in the order of
// Layers, each with the first sentence of its doc and what it imports of
// the module.
func PackageMap(pkgs []Package) string {
	byLayer := map[int][]Package{}
	for _, p := range pkgs {
		byLayer[LayerOf(p.Path)] = append(byLayer[LayerOf(p.Path)], p)
	}
	var b strings.Builder
	b.WriteString("| package | layer | what it holds | imports (wright) |\n|---|---|---|---|\n")
	for i := -1; i < len(Layers); i++ {
		name := "(none)"
		if i >= 0 {
			name = Layers[i].Name
		}
		for _, p := range byLayer[i] {
			imports := "—"
			if len(p.Imports) > 0 {
				imports = strings.Join(p.Imports, ", ")
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", p.Path, name, cell(p.Doc), imports)
		}
	}
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// Splice returns doc with the generated part of section replaced by body.
func Splice(doc, section, body string) (string, error) {
	i, j, err := bounds(doc, section)
	if err != nil {
		return "", err
	}
	return doc[:i] + "\n" + body + doc[j:], nil
}

// Section returns the generated part of section in doc.
func Section(doc, section string) (string, error) {
	i, j, err := bounds(doc, section)
	if err != nil {
		return "", err
	}
	return strings.TrimPrefix(doc[i:j], "\n"), nil
}

// bounds are the offsets just after section's BEGIN line and at its END
// marker.
func bounds(doc, section string) (int, int, error) {
	b, e := begin(section), end(section)
	i := strings.Index(doc, b)
	if i < 0 {
		return 0, 0, fmt.Errorf("no %q marker for the %s", b, section)
	}
	i += len(b)
	j := strings.Index(doc[i:], e)
	if j < 0 {
		return 0, 0, fmt.Errorf("the %s has no end marker %q", section, e)
	}
	return i, i + j, nil
}

// Generate rewrites every generated part of the architecture page doc from
// pkgs. The browser table is not generated (its concepts are prose) but
// checked: see BrowserFileProblems.
func Generate(doc string, pkgs []Package) (string, error) {
	doc, err := Splice(doc, LayersSection, LayersTable())
	if err != nil {
		return "", err
	}
	return Splice(doc, PackageMapSection, PackageMap(pkgs))
}

var fileRow = regexp.MustCompile("(?m)^\\| `([^`]+)` \\|")

// BrowserFileProblems compares the browser section's table of files with
// the files of the browser package in dir (its .go files other than tests,
// and its .js files): one problem for each file the table lacks and each
// row that names no file.
func BrowserFileProblems(doc, dir string) ([]string, error) {
	table, err := Section(doc, BrowserSection)
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	for _, m := range fileRow.FindAllStringSubmatch(table, -1) {
		listed[m[1]] = true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read the browser package: %w", err)
	}
	var problems []string
	onDisk := map[string]bool{}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || strings.HasSuffix(n, "_test.go") || (filepath.Ext(n) != ".go" && filepath.Ext(n) != ".js") {
			continue
		}
		onDisk[n] = true
		if !listed[n] {
			problems = append(problems, fmt.Sprintf("browser/%s is not in the file table of docs/architecture.md", n))
		}
	}
	for n := range listed {
		if !onDisk[n] {
			problems = append(problems, fmt.Sprintf("docs/architecture.md lists browser/%s, which is not there", n))
		}
	}
	sort.Strings(problems)
	return problems, nil
}
