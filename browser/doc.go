// Package browser is wright's browser engine: it launches (or attaches to)
// Chromium through go-rod and drives it with Playwright's semantics.
// Package browser/driver serves this engine to language clients as the
// JSON-RPC protocol of PROTOCOL.md (`wright driver`).
//
// # Launching
//
// Launch starts a headless Chromium found from Options.Executable, then
// $WRIGHT_BROWSER, then chromium, chromium-browser, google-chrome or
// google-chrome-stable on PATH, then on macOS the Chromium and Google Chrome
// application bundles in /Applications and ~/Applications (a browser is
// never downloaded), with a
// fresh temporary profile unless Options.UserDataDir names one. With
// Options.CDPURL it attaches to a running browser instead (ws://... or
// http://host:port) and adopts the tabs it has.
//
//	b, err := browser.Launch(ctx, browser.Options{})
//	defer b.Close(ctx)
//	p, err := b.NewPage(ctx)
//	res, err := p.Goto(ctx, "https://example.com/", browser.Load, 0)
//
// Close ends the browser process group and removes the temporary profile;
// so does a crash, and every call on a crashed or closed browser fails at
// once with a TargetClosed error (Done is closed, Err says why). A launched
// browser is not tied to this process's life: if the process is killed
// with SIGKILL, Chromium outlives it (the driver handles SIGINT, SIGTERM and
// a closed stdin).
//
// # Pages and locators
//
// A Page is one tab (ids p1, p2, ... in creation order; popups become pages
// with an Opener). Its methods mirror the protocol's page.* methods: Goto,
// Reload, GoBack, GoForward, WaitForLoadState, WaitForURL, WaitForSelector,
// Screenshot, AriaSnapshot, Evaluate, Press, Type, MouseClick, MouseMove,
// MouseWheel, SetViewportSize, BringToFront, Close, ConsoleMessages,
// PageErrors and Dialogs (dialogs are accepted as they open).
//
// Page.Locator parses a selector (see driver/PROTOCOL.md, "Selectors") into a
// Locator, which holds no element and resolves the selector on every call.
// Actions (Click, DblClick, Fill, Press, PressSequentially, SetChecked,
// SelectOption, Hover, Focus, ScrollIntoViewIfNeeded) wait until their one
// target is attached, visible, stable, enabled and, for pointer actions,
// hit at its click point; several matches are a StrictModeViolation at once.
// Reads (InnerText, TextContent, InnerHTML, InputValue, GetAttribute,
// BoundingBox, Evaluate, Screenshot, AriaSnapshot) wait for one match;
// Count, AllTexts and Is do not wait.
//
// Every waiting call takes a timeout (zero: Options.Timeout, 10s by
// default) as well as a context. Errors are *Error values whose Type is the
// protocol's error type (TypeOf, IsType) and whose message says what was
// waited for and what was found instead.
//
// # Serving the protocol
//
// Package browser/driver does: driver.ServeStdio serves one client over a
// reader and a writer (the `wright driver` subcommand) and closes the
// browser when the input ends; driver.ServeSocket serves any number of
// clients on a Unix socket until its context ends, all sharing one
// browser. For live mode, a driver.Server is held in-process, while
// Server.Browser gives the same browser to Go code for observations.
// Options.URLPolicy is asked before every navigation and for every new
// tab; a refusal is a BlockedURL error.
//
// Selectors and actionability run in a JavaScript engine (engine.js)
// installed once per execution context; ARIA snapshots and aria-ref=
// selectors come from package browser/aria, with one aria.Registry per page.
package browser
