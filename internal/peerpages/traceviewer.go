package peerpages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// PlaywrightCoreVersion is the playwright-core whose trace viewer the trace
// tests open wright's traces in: the version of the driver the pinned
// playwright-python suite was written for (its DRIVER_VERSION). Its viewer
// reads trace format 8 (browser/trace.FormatVersion).
const PlaywrightCoreVersion = "1.62.1"

// PlaywrightCore returns the directory of the installed playwright-core
// package (holding lib/vite/traceViewer), installing it on first use. The
// install is $WRIGHT_PLAYWRIGHT_CORE/<version>, or
// wright-playwright-core/<version> in the user's cache directory, with the
// package reachable as package/ there: the layout of Playwright's own Python
// driver, where wright's Python client looks for it too (the
// compute_driver_executable of its _driver.py), so that the viewer tests of
// Playwright's suite find the viewer.
func PlaywrightCore(ctx context.Context) (string, error) {
	root := os.Getenv("WRIGHT_PLAYWRIGHT_CORE")
	if root == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("%w: no cache directory: %v", ErrUnavailable, err)
		}
		root = filepath.Join(cache, "wright-playwright-core")
	}
	final := filepath.Join(root, PlaywrightCoreVersion)
	pkg := filepath.Join(final, "package")
	if hasViewer(final) {
		return pkg, nil
	}
	link := func(dir string) error {
		if err := os.Symlink(filepath.Join("node_modules", "playwright-core"), filepath.Join(dir, "package")); err != nil {
			return fmt.Errorf("link playwright-core: %w", err)
		}
		return nil
	}
	if err := npmInstall(ctx, root, final, "wright-playwright-core", []string{"playwright-core@" + PlaywrightCoreVersion}, hasViewer, link); err != nil {
		return "", err
	}
	return pkg, nil
}

// TraceViewer returns the directory of playwright-core's trace viewer
// (a static site: index.html, sw.bundle.js, ...), installing it first.
func TraceViewer(ctx context.Context) (string, error) {
	pkg, err := PlaywrightCore(ctx)
	if err != nil {
		return "", err
	}
	return filepath.Join(pkg, "lib", "vite", "traceViewer"), nil
}

func hasViewer(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "package", "lib", "vite", "traceViewer", "sw.bundle.js"))
	return err == nil
}
