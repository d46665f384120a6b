package peerpages

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// PlaywrightCoreVersion is the playwright-core whose trace viewer the trace
// tests open wright's traces in: the version of the driver the pinned
// playwright-python suite was written for (its DRIVER_VERSION). Its viewer
// reads trace format 8 (browser/trace.FormatVersion).
const PlaywrightCoreVersion = "1.62.1"

// playwrightCoreFolder is its cache folder, beside the pages'.
const playwrightCoreFolder = "playwright-core-" + PlaywrightCoreVersion

// PlaywrightCore returns the directory of the installed playwright-core
// package (holding lib/vite/traceViewer), installed as Dir installs the
// pages, in a folder of its own. The package is also reachable as package/
// in that folder: the layout of Playwright's own Python driver, where
// wright's Python client looks for it (compute_driver_executable in its
// _driver.py), so that the viewer tests of Playwright's suite find the
// viewer.
func PlaywrightCore(ctx context.Context) (string, error) {
	modules, err := install(ctx, playwrightCoreFolder, []string{"playwright-core@" + PlaywrightCoreVersion},
		[]string{"playwright-core/lib/vite/traceViewer/sw.bundle.js"})
	if err != nil {
		return "", err
	}
	link := filepath.Join(filepath.Dir(modules), "package")
	err = os.Symlink(filepath.Join("node_modules", "playwright-core"), link)
	if err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("link playwright-core as %s: %w", link, err)
	}
	return filepath.Join(modules, "playwright-core"), nil
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
