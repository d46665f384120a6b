// Package arch is wright's architecture as data: the layers the packages
// are filed in, the rule for which layer may import which, and the package
// map and browser file table of docs/architecture.md, made from `go list` so
// that the page cannot drift from the code. Its tests fail on an import that
// points up a layer, on a package no layer holds, and on a committed map or
// table that differs from what the code says; `make docs` rewrites the map.
package arch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// Module is the module path every package of wright starts with.
const Module = "wright"

// A Layer is a group of folders whose packages play one part. Layers are
// ordered from the top (what a person calls) to the bottom (what everything
// uses): a package may import its own layer and the layers below it, never
// one above.
type Layer struct {
	Name string
	// Folders are the module-relative folders the layer holds, each with
	// everything below it. The longest folder that holds a package decides
	// its layer, so bench/measure can sit above bench.
	Folders []string
	// Holds says in one line what the layer is for.
	Holds string
}

// Layers are wright's layers, top first.
var Layers = []Layer{
	{"deploy", []string{"deploy"}, "running a bench past one machine: a container image, a Kubernetes Indexed Job, a Slurm array"},
	{"cmd", []string{"cmd"}, "the CLI: flags in, library calls out"},
	{"measure", []string{"bench/measure"}, "programs that measure wright (context, prompts, scale, perf, ARIA); any layer below the CLI is theirs to use"},
	{"agents", []string{"agents"}, "the doors other agents use: the MCP server, the browser sessions of `wright browser`, the skills"},
	{"review", []string{"review"}, "what a run or a bench left on disk, rendered for a person or a program"},
	{"bench", []string{"bench"}, "`wright bench`: many tasks headlessly, resumable and shardable, and the results line"},
	{"demo", []string{"demo"}, "the bundled shop and its recorded replies: wright without a key"},
	{"library", []string{"library"}, "scripts kept by name, and their reuse: rerun with inputs, heal, check"},
	{"run", []string{"run"}, "one run, top to bottom: harness, loop, gate, judge, verdict, compaction, config, prompts, the run folder"},
	{"model", []string{"model"}, "the model's APIs behind one table of providers, the action parser, the test endpoint"},
	{"env", []string{"env"}, "what the agent acts on: the workspace's shell and the live browser"},
	{"browser", []string{"browser"}, "the browser engine on Chromium, its driver and the Python client"},
	{"trust", []string{"trust"}, "the boundaries: the sandbox, the URL policy's proxy, secrets, the key"},
	{"internal", []string{"internal"}, "small helpers every layer may use, and this package"},
}

// A Package is one package of the module, as `go list` tells it.
type Package struct {
	// Path is module-relative: "run/harness", "browser".
	Path string
	// Doc is the first sentence of the package's doc comment.
	Doc string
	// Imports are the module's own packages the package's code imports
	// (module-relative, sorted); test files are not counted: a test may
	// start a whole run from a lower layer to see it from the outside.
	Imports []string
	// Main says the package is a command.
	Main bool
}

// LayerOf is the index in Layers of the layer that holds the package at
// module-relative path p, or -1 when none does.
func LayerOf(p string) int {
	best, bestLen := -1, -1
	for i, l := range Layers {
		for _, f := range l.Folders {
			if (p == f || strings.HasPrefix(p, f+"/")) && len(f) > bestLen {
				best, bestLen = i, len(f)
			}
		}
	}
	return best
}

// Check returns one error for each package no layer holds, each package
// with no doc comment, and each import that points up a layer.
func Check(pkgs []Package) []error {
	var errs []error
	for _, p := range pkgs {
		from := LayerOf(p.Path)
		if from < 0 {
			errs = append(errs, fmt.Errorf("%s is in no layer: file it under one of the folders of arch.Layers, or add a layer there and to docs/architecture.md", p.Path))
			continue
		}
		if p.Doc == "" {
			errs = append(errs, fmt.Errorf("%s has no package doc comment: the package map shows its first sentence", p.Path))
		}
		for _, imp := range p.Imports {
			to := LayerOf(imp)
			if to >= 0 && to < from {
				errs = append(errs, fmt.Errorf("%s (layer %s) imports %s (layer %s), a layer above it", p.Path, Layers[from].Name, imp, Layers[to].Name))
			}
		}
	}
	return errs
}

// listed is the part of `go list -json` that Load reads.
type listed struct {
	ImportPath   string
	Dir          string
	Name         string
	Doc          string
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
	Imports      []string
}

// Load lists the module's packages with `go list`, run in root (the
// module's folder).
func Load(ctx context.Context, root string) ([]Package, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-json", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var pkgs []Package
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var l listed
		if err := dec.Decode(&l); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read go list: %w", err)
		}
		pkgs = append(pkgs, fromListed(l))
	}
	sort.Slice(pkgs, func(i, j int) bool { return pkgs[i].Path < pkgs[j].Path })
	return pkgs, nil
}

func fromListed(l listed) Package {
	p := Package{Path: strings.TrimPrefix(strings.TrimPrefix(l.ImportPath, Module), "/"), Doc: l.Doc, Main: l.Name == "main"}
	if p.Path == "" {
		p.Path = "."
	}
	if p.Doc == "" && len(l.GoFiles) == 0 {
		// A package of tests alone (deploy) keeps its doc comment in a test
		// file, which go list does not read for Doc.
		p.Doc = testDoc(l.Dir, append(l.TestGoFiles, l.XTestGoFiles...))
	}
	for _, imp := range l.Imports {
		if imp == Module || strings.HasPrefix(imp, Module+"/") {
			p.Imports = append(p.Imports, strings.TrimPrefix(imp, Module+"/"))
		}
	}
	sort.Strings(p.Imports)
	return p
}

// testDoc is the first sentence of the first doc comment among files.
func testDoc(dir string, files []string) string {
	for _, f := range files {
		file, err := parser.ParseFile(token.NewFileSet(), filepath.Join(dir, f), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err == nil && file.Doc != nil {
			return firstSentence(file.Doc.Text())
		}
	}
	return ""
}

// firstSentence is text up to the first period followed by a space or the
// end, on one line, as go list's Doc gives it.
func firstSentence(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	for i := 0; i < len(text); i++ {
		if text[i] == '.' && (i+1 == len(text) || text[i+1] == ' ') {
			return text[:i+1]
		}
	}
	return text
}
