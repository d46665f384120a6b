// Package peerpages provides real web pages that no one in this project
// wrote, for tests that must hold on pages outside the project's own
// fixtures: the npm packages bench/measure/perf measures (TodoMVC, the Cypress
// kitchensink, swagger-ui), and har-validator, which checks the HAR files
// wright writes as other tools would. They are installed with npm into a cache
// directory on first use and reused afterwards.
package peerpages

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Packages are the npm packages installed, pinned as bench/measure/perf pins them.
var Packages = []string{"todomvc@0.1.1", "cypress-example-kitchensink@7.0.0", "swagger-ui-dist@5"}

// Pages are the pages of those packages, relative to the node_modules
// directory, that bench/measure/perf measures.
var Pages = []string{
	"cypress-example-kitchensink/app/index.html",
	"cypress-example-kitchensink/app/commands/actions.html",
	"cypress-example-kitchensink/app/commands/querying.html",
	"cypress-example-kitchensink/app/commands/traversal.html",
	"todomvc/examples/vanillajs/index.html",
	"todomvc/examples/jquery/index.html",
	"swagger-ui-dist/index.html",
}

// ErrUnavailable says the pages cannot be had on this machine (no npm, or
// the registry cannot be reached); tests skip on it and say why.
var ErrUnavailable = errors.New("the npm pages are unavailable")

// Dir returns the node_modules directory holding every package, installing
// what is missing. The directory is $WRIGHT_PEER_PAGES, or wright-peer-pages
// in the user's cache directory. An install goes to a fresh directory that
// is renamed into place whole, so concurrent test processes never see (or
// make) half an install.
func Dir(ctx context.Context) (string, error) {
	return install(ctx, "v1", Packages, Pages)
}

// HARValidatorPackage is har-validator, the HAR 1.2 JSON Schema check
// (with its schema, har-schema) that HTTP tools on npm use to accept a HAR
// file. Its API has been frozen for years, as HAR 1.2 has.
const HARValidatorPackage = "har-validator@5.1.5"

// HARValidator returns the node_modules directory holding har-validator,
// installed as Dir installs the pages (in a folder of its own beside them).
func HARValidator(ctx context.Context) (string, error) {
	return install(ctx, "har-validator-5.1.5", []string{HARValidatorPackage}, []string{"har-validator/package.json"})
}

// install puts packages into the cache folder version (unless files are
// all there already) and returns its node_modules directory.
func install(ctx context.Context, version string, packages, files []string) (string, error) {
	root := os.Getenv("WRIGHT_PEER_PAGES")
	if root == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("%w: no cache directory: %v", ErrUnavailable, err)
		}
		root = filepath.Join(cache, "wright-peer-pages")
	}
	final := filepath.Join(root, version)
	if complete(final, files) {
		return filepath.Join(final, "node_modules"), nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("%w: npm is not on PATH", ErrUnavailable)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", fmt.Errorf("make %s: %w", root, err)
	}
	tmp, err := os.MkdirTemp(root, ".install-")
	if err != nil {
		return "", fmt.Errorf("make an install directory: %w", err)
	}
	defer os.RemoveAll(tmp) // gone once renamed; the leftovers of a failure otherwise
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"name":"wright-peer-pages","private":true}`+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("write package.json: %w", err)
	}
	args := append([]string{"install", "--ignore-scripts", "--no-audit", "--no-fund", "--silent"}, packages...)
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("npm install: %w", ctx.Err())
		}
		// npm fails the same way whether the registry is down or
		// unreachable from here: either way the pages cannot be had.
		return "", fmt.Errorf("%w: npm install %s: %v: %s", ErrUnavailable, strings.Join(packages, " "), err, lastLines(string(out), 5))
	}
	if !complete(tmp, files) {
		return "", fmt.Errorf("npm install left out some of %s in %s", strings.Join(packages, " "), tmp)
	}
	if err := os.Rename(tmp, final); err != nil && !complete(final, files) {
		return "", fmt.Errorf("move the install into %s: %w", final, err)
	}
	return filepath.Join(final, "node_modules"), nil
}

// complete says whether dir holds every one of files.
func complete(dir string, files []string) bool {
	for _, p := range files {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", p)); err != nil {
			return false
		}
	}
	return true
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
