package main

import "fmt"

// step is one logical step of a page's sequence, said once for both
// servers; server.call says it in each server's own tool names.
type step struct {
	Kind   string // navigate, snapshot, fill, type, click, press, wait
	Path   string // navigate: the page, relative to the site's root
	Target target // fill, type, click
	Text   string // fill, type; wait: the text to wait for
	Key    string // press
}

func (s step) String() string {
	switch s.Kind {
	case "navigate":
		return "navigate"
	case "snapshot":
		return "snapshot"
	case "press":
		return "press " + s.Key
	case "wait":
		return "wait for " + fmt.Sprintf("%q", s.Text)
	case "fill", "type":
		return fmt.Sprintf("%s %s", s.Kind, s.Target)
	default:
		return fmt.Sprintf("%s %s", s.Kind, s.Target)
	}
}

// isAction says whether a step is an action on the page (timed as "time
// per action"); a snapshot is a read, and a wait lasts as long as the
// page takes.
func (s step) isAction() bool { return s.Kind != "snapshot" && s.Kind != "wait" }

// page is one of the npm pages with its sequence.
type page struct {
	Name  string
	Steps []step
}

// specPath is where the site serves the OpenAPI document swagger-ui is
// pointed at (the page's own default is on the internet).
const specPath = "/spec/notes.json"

// pages are the sequences: navigate, snapshot, a few fills, typing and
// clicks by ref, a key press, and a final snapshot. Where a step acts on
// an element the page only shows after earlier steps, a snapshot comes
// first, as a client that reads whole snapshots needs one to learn the
// element's ref; both servers get the same calls.
func pages() []page {
	todo := target{Role: "textbox", Name: "What needs to be done?"}
	return []page{
		{Name: "TodoMVC (vanillajs)", Steps: []step{
			{Kind: "navigate", Path: "/peer/todomvc/examples/vanillajs/index.html"},
			{Kind: "snapshot"},
			{Kind: "fill", Target: todo, Text: "Buy milk"},
			{Kind: "press", Key: "Enter"},
			{Kind: "type", Target: todo, Text: "Walk the dog"},
			{Kind: "press", Key: "Enter"},
			{Kind: "snapshot"},
			{Kind: "click", Target: target{Role: "link", Name: "Active"}},
			{Kind: "click", Target: target{Role: "link", Name: "All"}},
			{Kind: "snapshot"},
		}},
		{Name: "Cypress kitchensink (actions)", Steps: []step{
			{Kind: "navigate", Path: "/peer/cypress-example-kitchensink/app/commands/actions.html"},
			{Kind: "snapshot"},
			{Kind: "fill", Target: target{Role: "textbox", Name: "Email address"}, Text: "fake@email.com"},
			{Kind: "fill", Target: target{Role: "textbox", Name: "Full Name"}, Text: "Ada Lovelace"},
			{Kind: "type", Target: target{Role: "textbox", Name: "Coupon Code"}, Text: "HALFOFF"},
			{Kind: "click", Target: target{Role: "button", Name: "Click to toggle popover"}},
			// The coupon form's submit reloads the page (a GET to itself):
			// every ref after it is new, on both servers.
			{Kind: "click", Target: target{Role: "button", Name: "Submit"}},
			{Kind: "press", Key: "Escape"},
			{Kind: "snapshot"},
		}},
		{Name: "swagger-ui", Steps: []step{
			{Kind: "navigate", Path: "/peer/swagger-ui-dist/index.html"},
			{Kind: "snapshot"},
			{Kind: "fill", Target: target{Role: "textbox"}, Text: "{site}" + specPath},
			{Kind: "click", Target: target{Role: "button", Name: "Explore"}},
			// The document loads after the click returns; a client that
			// acts next waits for it, on either server.
			{Kind: "wait", Text: "List the notes"},
			{Kind: "snapshot"},
			{Kind: "click", Target: target{Role: "button", Name: "GET /notes", Prefix: true}},
			{Kind: "snapshot"},
			{Kind: "click", Target: target{Role: "button", Name: "Try it out"}},
			{Kind: "press", Key: "Tab"},
			{Kind: "snapshot"},
		}},
	}
}

// dialect is how a server names the steps: its tool names and arguments.
type dialect struct {
	Name string
	call func(s step, url, ref, text string) (tool string, args map[string]any)
}

// wrightDialect: wright mcp's browser tools (agents/session), called with
// their defaults, as a client that read only the tool list would.
var wrightDialect = dialect{Name: "wright", call: func(s step, url, ref, text string) (string, map[string]any) {
	switch s.Kind {
	case "navigate":
		return "navigate", map[string]any{"url": url}
	case "snapshot":
		return "snapshot", map[string]any{}
	case "fill":
		return "fill", map[string]any{"ref": ref, "text": text}
	case "type":
		return "type", map[string]any{"ref": ref, "text": text}
	case "click":
		return "click", map[string]any{"ref": ref}
	case "press":
		return "press", map[string]any{"key": s.Key}
	case "wait":
		return "wait", map[string]any{"text": s.Text}
	}
	panic("unknown step " + s.Kind)
}}

// playwrightDialect: @playwright/mcp's tools, with their defaults.
// browser_type fills at once unless slowly is set; key by key is
// slowly: true. element is the description its schema asks for.
var playwrightDialect = dialect{Name: "playwright-mcp", call: func(s step, url, ref, text string) (string, map[string]any) {
	switch s.Kind {
	case "navigate":
		return "browser_navigate", map[string]any{"url": url}
	case "snapshot":
		return "browser_snapshot", map[string]any{}
	case "fill":
		return "browser_type", map[string]any{"target": ref, "element": s.Target.String(), "text": text}
	case "type":
		return "browser_type", map[string]any{"target": ref, "element": s.Target.String(), "text": text, "slowly": true}
	case "click":
		return "browser_click", map[string]any{"target": ref, "element": s.Target.String()}
	case "press":
		return "browser_press_key", map[string]any{"key": s.Key}
	case "wait":
		return "browser_wait_for", map[string]any{"text": s.Text}
	}
	panic("unknown step " + s.Kind)
}}
