// Package peerpages provides real web pages that no one in this project
// wrote, for tests that must hold on pages outside the project's own
// fixtures: the npm packages bench/perf measures (TodoMVC, the Cypress
// kitchensink, swagger-ui). They are installed with npm into a cache
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

// Packages are the npm packages installed, pinned as bench/perf pins them.
var Packages = []string{"todomvc@0.1.1", "cypress-example-kitchensink@7.0.0", "swagger-ui-dist@5"}

// Pages are the pages of those packages, relative to the node_modules
// directory, that bench/perf measures.
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
	root := os.Getenv("WRIGHT_PEER_PAGES")
	if root == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("%w: no cache directory: %v", ErrUnavailable, err)
		}
		root = filepath.Join(cache, "wright-peer-pages")
	}
	final := filepath.Join(root, "v1")
	if complete(final) {
		return filepath.Join(final, "node_modules"), nil
	}
	if err := npmInstall(ctx, root, final, "wright-peer-pages", Packages, complete, nil); err != nil {
		return "", err
	}
	return filepath.Join(final, "node_modules"), nil
}

// npmInstall installs pkgs into final (under root) unless done(final): in a
// fresh directory that is renamed into place whole, so concurrent test
// processes never see (or make) half an install. finish, if given, runs in
// the fresh directory before the rename.
func npmInstall(ctx context.Context, root, final, name string, pkgs []string, done func(string) bool, finish func(string) error) error {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return fmt.Errorf("%w: npm is not on PATH", ErrUnavailable)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("make %s: %w", root, err)
	}
	tmp, err := os.MkdirTemp(root, ".install-")
	if err != nil {
		return fmt.Errorf("make an install directory: %w", err)
	}
	defer os.RemoveAll(tmp) // gone once renamed; the leftovers of a failure otherwise
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(`{"name":"`+name+`","private":true}`+"\n"), 0o644); err != nil {
		return fmt.Errorf("write package.json: %w", err)
	}
	args := append([]string{"install", "--ignore-scripts", "--no-audit", "--no-fund", "--silent"}, pkgs...)
	cmd := exec.CommandContext(ctx, npm, args...)
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("npm install: %w", ctx.Err())
		}
		// npm fails the same way whether the registry is down or
		// unreachable from here: either way the pages cannot be had.
		return fmt.Errorf("%w: npm install %s: %v: %s", ErrUnavailable, strings.Join(pkgs, " "), err, lastLines(string(out), 5))
	}
	if finish != nil {
		if err := finish(tmp); err != nil {
			return err
		}
	}
	if !done(tmp) {
		return fmt.Errorf("npm install left out some of %s in %s", strings.Join(pkgs, " "), tmp)
	}
	if err := os.Rename(tmp, final); err != nil && !done(final) {
		return fmt.Errorf("move the install into %s: %w", final, err)
	}
	return nil
}

// complete says whether dir holds every page.
func complete(dir string) bool {
	for _, p := range Pages {
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
