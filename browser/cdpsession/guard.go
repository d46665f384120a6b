package cdpsession

import (
	"fmt"
	"strings"
)

// The guard. A run's scripts (a driver with a URL policy or secrets) may
// use CDP for what stays inside the page the session is attached to:
// evaluate and debug its scripts, read and change its DOM and styles,
// observe its network, measure it, emulate devices, send it input,
// capture it. What reaches beyond the page is refused, because the driver
// could then no longer stand behind its guards:
//
//   - navigating or opening anything (Page.navigate, Target.createTarget,
//     Target.createBrowserContext with a proxy of its own): the URL policy
//     is asked before every navigation the driver makes;
//   - intercepting or answering requests (Fetch.*, request interception),
//     loading resources outside the page (Network.loadNetworkResource),
//     turning off certificate checks (Security.*);
//   - files of the machine the driver runs on, outside the sandbox
//     (DOM.setFileInputFiles, Page/Browser.setDownloadBehavior, IO.*,
//     Tracing.*);
//   - other targets and the browser itself (Target.* but reading the list,
//     Browser.* but its version, SystemInfo.*, Storage.*).
//
// Methods of domains not listed are refused too: a new domain is added
// when what it can reach has been read. Typing a secret stays the
// driver's alone (fill and type with <secret> placeholders); Input.insertText
// here types what it is given, like keyboard.insert_text.

// pageDomains are allowed whole.
var pageDomains = map[string]bool{
	"Runtime": true, "Debugger": true, "Console": true, "Log": true, "DOM": true, "CSS": true,
	"DOMSnapshot": true, "DOMDebugger": true, "DOMStorage": true, "Overlay": true, "Accessibility": true,
	"Animation": true, "Performance": true, "PerformanceTimeline": true, "Profiler": true,
	"HeapProfiler": true, "Memory": true, "LayerTree": true, "Emulation": true, "Input": true,
	"Inspector": true, "Audits": true, "IndexedDB": true, "CacheStorage": true, "Media": true,
	"WebAudio": true, "EventBreakpoints": true, "Schema": true,
}

// pageMethods are allowed in the domains allowed in part.
var pageMethods = map[string]bool{
	"Network.enable": true, "Network.disable": true, "Network.getResponseBody": true,
	"Network.getRequestPostData": true, "Network.getCookies": true, "Network.setCacheDisabled": true,
	"Network.clearBrowserCache": true, "Network.emulateNetworkConditions": true,
	"Network.setUserAgentOverride": true, "Network.setExtraHTTPHeaders": true, "Network.setBlockedURLs": true,
	"Page.enable": true, "Page.disable": true, "Page.getFrameTree": true, "Page.getLayoutMetrics": true,
	"Page.captureScreenshot": true, "Page.printToPDF": true, "Page.reload": true, "Page.bringToFront": true,
	"Page.getNavigationHistory": true, "Page.addScriptToEvaluateOnNewDocument": true,
	"Page.removeScriptToEvaluateOnNewDocument": true, "Page.setLifecycleEventsEnabled": true,
	"Page.createIsolatedWorld": true, "Page.getResourceTree": true, "Page.getResourceContent": true,
	"Page.stopLoading": true, "Page.setBypassCSP": true, "Page.handleJavaScriptDialog": true,
	"Page.startScreencast": true, "Page.stopScreencast": true, "Page.screencastFrameAck": true,
	"Page.setDocumentContent": true, "Page.getAppManifest": true,
	"DOM.setFileInputFiles": false, "DOM.getFileInfo": false,
}

// browserMethods are what a guarded browser session may send: reading.
var browserMethods = map[string]bool{
	"Browser.getVersion": true, "Target.getTargets": true, "Target.getTargetInfo": true,
	"SystemInfo.getInfo": false,
}

// Allowed says whether a guarded session may send method (browser: a
// session on the browser rather than a page); the error says why not.
func Allowed(method string, browser bool) error {
	domain, _, ok := strings.Cut(method, ".")
	if !ok || domain == "" {
		return fmt.Errorf("%w: %q is not a CDP method (Domain.method)", ErrRefused, method)
	}
	if browser {
		if browserMethods[method] {
			return nil
		}
		return fmt.Errorf("%w: %s: a browser CDP session in a run may only read (Browser.getVersion, Target.getTargets, Target.getTargetInfo)", ErrRefused, method)
	}
	if allowed, listed := pageMethods[method]; listed {
		if allowed {
			return nil
		}
	} else if pageDomains[domain] {
		return nil
	}
	return fmt.Errorf("%w: %s reaches beyond the page (navigation, requests, files or other targets), past the run's URL policy and guards; use the Playwright API for it (page.goto, page.route, set_input_files, ...)", ErrRefused, method)
}
