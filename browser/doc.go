// Package browser is wright's browser engine: it launches (or attaches to)
// Chromium through go-rod and drives it with Playwright's semantics.
// Package browser/driver serves it to language clients as the JSON-RPC
// protocol of driver/PROTOCOL.md (`wright driver`).
//
// # Launching
//
// Launch starts a headless Chromium (package browser/launcher finds it:
// Options.Executable, then $WRIGHT_BROWSER, then chromium, chromium-browser,
// google-chrome or google-chrome-stable on PATH, then on macOS the usual
// application bundles; a browser is never downloaded) with a fresh
// temporary profile unless Options.UserDataDir names one. With
// Options.CDPURL it attaches to a running browser instead (ws://... or
// http://host:port) and adopts the tabs it has.
//
//	b, err := browser.Launch(ctx, browser.Options{})
//	defer b.Close(ctx)
//	p, err := b.NewPage(ctx)
//	res, err := p.Goto(ctx, "https://example.com/", browser.Load, 0)
//
// Close ends the browser's process group and removes the temporary
// profile; so does a crash, and every call on a crashed or closed browser
// fails at once with a TargetClosed error (Done is closed, Err says why).
// New pages are 1280x1800 unless Options.Viewport says otherwise.
//
// # Pages, input and routing
//
// A Page is one tab (ids p1, p2, ... in creation order; popups become
// pages with an Opener), in a browser Context (Browser.NewContext, or
// Browser.Context by id; the default context is DefaultContext), which
// opens pages (NewPage) and holds the cookies, permissions, downloads,
// defaults and named init scripts of its pages. A page's own methods
// navigate (Goto, Reload, GoBack, GoForward, WaitForLoadState, WaitForURL),
// read its state (URL, Title, Content, ConsoleMessages, PageErrors,
// Dialogs), emulate (Emulate, EmulateMedia, SetViewportSize), evaluate
// (Evaluate, Call with value transfer and handles, init scripts and
// bindings), capture (Screenshot, AriaSnapshot) and list its frames
// (FrameTree). A Frame (Page.MainFrame, or Page.Frame by CDP's frame id) is
// one frame of the page: its Tree, its Owner element, and Goto for a child
// frame. Input and routing have receivers of their own:
// Page.Keyboard (Press, Type, Down, Up, InsertText), Page.Mouse (Click,
// Move, MoveSteps, Wheel, Button), Page.Router (Enable, Continue, Fulfill,
// Abort) and Page.LocatorHandlers (Add, Remove, Resolve, Run).
//
// Page.Locator parses a selector (package browser/selector; syntax in
// driver/PROTOCOL.md, "Selectors") into a Locator, which holds no element
// and resolves the selector on every call. Actions (Click, DblClick, Fill,
// Press, PressSequentially, SetChecked, SelectOption, Hover, Focus,
// DragTo, SetInputFiles, ScrollIntoViewIfNeeded) wait until their one
// target is attached, visible, stable, enabled and, for pointer actions,
// hit at its click point; several matches are a StrictModeViolation at
// once. Reads (InnerText, TextContent, InnerHTML, InputValue, GetAttribute,
// BoundingBox, Evaluate, Screenshot, AriaSnapshot) wait for one match;
// Count, AllTexts and Is do not wait.
//
// Every waiting call takes a timeout (zero: Options.Timeout, 10s by
// default) as well as a context. Errors are *Error values whose Type is
// the protocol's error type (TypeOf, IsType) and whose message says what
// was waited for and what was found instead.
//
// # Events
//
// Browser.Subscribe delivers what happens in the browser as typed events
// (ConsoleEvent, RequestEvent, RouteEvent, DialogEvent, ...: event_types.go),
// each carrying its page; the driver names them for the wire.
//
// # Files
//
// The package is filed by concept, one file each: browser.go (launch and
// process), targets.go (targets and popups), contexts.go (the Context),
// page.go (the Page and its state), navigation.go, events.go and
// event_types.go, emulation.go, frames.go (the Frame), keyboard.go,
// mouse.go (with drag and drop), actionability.go (waits, hit tests,
// retargeting), locator.go, locator_handlers.go, resolve.go (selector
// resolution in the in-page engine, engine.js, and custom engines),
// evaluate.go (evaluation, init scripts, bindings), handles.go (element
// handles), network.go (routing, request events, network idle, API
// requests), files.go (file inputs and downloads), screenshot.go and
// aria.go. The parts that import neither rod nor CDP are packages of
// their own: browser/selector (parsing), browser/keys (the key table),
// browser/launcher (finding and starting Chromium); ARIA snapshots and
// aria-ref= selectors come from browser/aria, one aria.Registry per page.
package browser
